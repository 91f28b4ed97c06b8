/**
 * The adapter conformance kit (`patchbay/testing`). A factory: adapterConformance({ pluginDir })
 * returns the claims; register(vitest) makes one test per claim, run() runs them without a test
 * runner (what `patchbay plugin test` can call). The adapter is loaded exactly as the host loads
 * it — a real worker behind the checked boundary — and install claims run the real installer in a
 * sandbox (temp HOME and project, fake client binary on PATH). Run it against every real adapter,
 * not a fake (the reference system's kit only ever saw a fake).
 * The claims are in adapter-claims.ts (the adapter itself) and adapter-install-claims.ts (the
 * installer); what they share (session, sandboxes, fixtures) is adapter-kit-context.ts.
 */
import type { ClaimResult } from "./types.js";
import { adapterKitContext, ClaimSkipped, type AdapterClaim, type AdapterKitOptions } from "./adapter-kit-context.js";
import { adapterContractClaims } from "./adapter-claims.js";
import { adapterInstallClaims } from "./adapter-install-claims.js";

export type { AdapterClaim, AdapterKitOptions };

interface VitestLike {
  describe(name: string, fn: () => void): void;
  it(name: string, fn: (ctx: { skip(note?: string): never }) => Promise<void>, timeout?: number): void;
  beforeAll(fn: () => Promise<void>, timeout?: number): void;
  afterAll(fn: () => Promise<void>, timeout?: number): void;
}

export interface AdapterKit {
  readonly name: string;
  readonly claims: readonly AdapterClaim[];
  register(api: VitestLike): void;
  run(): Promise<ClaimResult[]>;
}

const CLAIM_TIMEOUT_MS = 60_000;

export function adapterConformance(opts: AdapterKitOptions): AdapterKit {
  const kit = adapterKitContext(opts);
  const { pluginJson, setup, teardown } = kit;
  const claims: AdapterClaim[] = [...adapterContractClaims(kit), ...adapterInstallClaims(kit)];

  return {
    name: pluginJson.name,
    claims,
    register(api) {
      api.describe(`adapter conformance: ${pluginJson.name}`, () => {
        api.beforeAll(setup, CLAIM_TIMEOUT_MS);
        api.afterAll(teardown, CLAIM_TIMEOUT_MS);
        for (const c of claims) {
          api.it(
            c.name,
            async (ctx) => {
              try {
                await c.run();
              } catch (err) {
                if (err instanceof ClaimSkipped) ctx.skip(err.message);
                throw err;
              }
            },
            CLAIM_TIMEOUT_MS,
          );
        }
      });
    },
    async run() {
      const results: ClaimResult[] = [];
      const timed = async (name: string, fn: () => Promise<void>) => {
        const started = performance.now();
        try {
          await fn();
          results.push({ claim: name, ok: true, reason: null, ms: Math.round(performance.now() - started) });
        } catch (err) {
          if (err instanceof ClaimSkipped) {
            results.push({
              claim: name,
              ok: true,
              reason: err.message,
              skipped: true,
              ms: Math.round(performance.now() - started),
            });
            return;
          }
          results.push({
            claim: name,
            ok: false,
            reason: err instanceof Error ? err.message : String(err),
            ms: Math.round(performance.now() - started),
          });
        }
      };
      try {
        await setup();
        for (const c of claims) await timed(c.name, c.run);
      } catch (err) {
        results.push({
          claim: "the adapter loads",
          ok: false,
          reason: err instanceof Error ? err.message : String(err),
          ms: 0,
        });
      } finally {
        await teardown();
      }
      return results;
    },
  };
}

/** One vitest test per claim (vitest is imported only here). */
export async function registerAdapterConformance(opts: AdapterKitOptions): Promise<void> {
  const vitest = await import("vitest");
  adapterConformance(opts).register(vitest as unknown as VitestLike);
}

/** Every claim, without a test runner: what `patchbay plugin test` runs for an adapter. */
export function runAdapterConformance(opts: AdapterKitOptions): Promise<ClaimResult[]> {
  return adapterConformance(opts).run();
}
