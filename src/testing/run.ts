/**
 * Running a kit: a session boots the plugin once with the valid config (and, on first use, once
 * with the invalid one), every claim runs against it in order, and everything is closed at the
 * end. runConformance() needs no test framework; registerConformance() maps the same claims onto
 * vitest tests, importing vitest only when it is called.
 */
import { randomBytes } from "node:crypto";
import path from "node:path";
import { fromWire, isPatchbayError, pbError, toWire, type PatchbayError } from "../errors.js";
import { SECTION_OF_KIND } from "../contract/kinds.js";
import type { Host } from "../host/api.js";
import { ClaimFailure } from "./assert.js";
import { bootKit, checkInvalidHealth, INSTANCE, removeTemps, resolveTarget, type Target } from "./boot.js";
import { conformanceKit } from "./kits/index.js";
import type { Claim, ClaimResult, ConformanceOptions, InvalidHealth, KitContext, KitKind } from "./types.js";

interface Session {
  kit: KitContext | null;
  /** Why the kit could not start: no claim can run. */
  startError: string | null;
  /** The same, as the error it was (for a caller that reports it once instead of per claim). */
  startCause: unknown;
  close(): Promise<void>;
}

async function openSession(kind: KitKind, opts: ConformanceOptions): Promise<Session> {
  let target: Target | null = null;
  let host: Host | null = null;
  const close = async () => {
    await host?.close();
    removeTemps(target);
  };
  try {
    target = await resolveTarget(kind, opts);
    host = await bootKit(kind, target, opts, target.config, true);
  } catch (err) {
    await close();
    const wire = toWire(err);
    return { kit: null, startError: `${wire.code}: ${wire.message}`, startCause: err, close: async () => {} };
  }
  const id = `${SECTION_OF_KIND[kind]}/${INSTANCE}`;
  const booted = host;
  const resolved = target;
  let invalid: Promise<InvalidHealth> | null = null;
  const kit: KitContext = {
    kind,
    host: booted,
    id,
    manifest: resolved.manifest,
    opts,
    report: booted.report().instances.find((i) => i.id === id)!,
    token: `pbkit${randomBytes(5).toString("hex")}`,
    call: <T>(method: string, ...args: unknown[]) => booted.call(id, method, args) as Promise<T>,
    invalidHealth: () => (invalid ??= checkInvalidHealth(kind, resolved, opts, opts.invalidConfig ?? {})),
  };
  return { kit, startError: null, startCause: null, close };
}

async function runClaim(session: Session, claim: Claim): Promise<ClaimResult> {
  const started = performance.now();
  const done = (ok: boolean, reason: string | null, skipped = false): ClaimResult => ({
    claim: claim.name,
    ok,
    reason,
    ...(skipped ? { skipped } : {}),
    ms: Math.round(performance.now() - started),
  });
  const { kit } = session;
  if (!kit) return done(false, `not run: the kit could not start: ${session.startError}`);
  const skip = claim.skip?.(kit) ?? null;
  if (skip) return done(true, skip, true);
  // Only the boot claim runs on an instance that is not ready; the others would fail for its reason.
  if (kit.report.state !== "ready" && claim.name !== CLAIM_BOOTS) {
    return done(
      false,
      `not run: the plugin did not become ready with the valid config (${kit.report.error?.code ?? kit.report.state}: ${kit.report.error?.message ?? ""})`,
    );
  }
  try {
    await claim.run(kit);
    return done(true, null);
  } catch (err) {
    const reason = err instanceof ClaimFailure ? err.message : `${toWire(err).code}: ${toWire(err).message}`;
    return done(false, reason);
  }
}

const CLAIM_BOOTS = "boots with the valid config and reports ready";

/**
 * Runs `kind`'s kit against the plugin, without a test framework. Never throws for a plugin's
 * failure: every claim comes back as {claim, ok, reason, skipped?, ms}, in order.
 */
export async function runConformance(kind: KitKind, opts: ConformanceOptions): Promise<ClaimResult[]> {
  const claims = conformanceKit(kind);
  if (opts.skip)
    return claims.map((c) => ({ claim: c.name, ok: true, reason: opts.skip as string, skipped: true, ms: 0 }));
  const session = await openSession(kind, opts);
  try {
    const results: ClaimResult[] = [];
    for (const claim of claims) results.push(await runClaim(session, claim));
    return results;
  } finally {
    await session.close();
  }
}

/**
 * Like runConformance, for a command that reports a plugin it cannot test once: a plugin that
 * cannot be found, fails to load or never becomes ready with the valid config throws that one
 * coded error instead of coming back as a failed row per claim ("not run" eleven times over).
 */
export async function runConformanceOrThrow(kind: KitKind, opts: ConformanceOptions): Promise<ClaimResult[]> {
  const claims = conformanceKit(kind);
  if (opts.skip) return runConformance(kind, opts);
  const session = await openSession(kind, opts);
  try {
    if (!session.kit) throw asError(session.startCause);
    const { report } = session.kit;
    if (report.state !== "ready") {
      throw report.error
        ? fromWire(report.error)
        : pbError(
            "PB_ERR_HEALTH_FAILED",
            `${report.id} did not become ready with the valid config (state ${report.state}).`,
            { instance: report.id },
          );
    }
    const results: ClaimResult[] = [];
    for (const claim of claims) results.push(await runClaim(session, claim));
    return results;
  } finally {
    await session.close();
  }
}

function asError(err: unknown): PatchbayError | Error {
  return isPatchbayError(err) || err instanceof Error ? err : new Error(String(err));
}

/**
 * Registers `kind`'s kit as vitest tests: one describe block, one test per claim, the plugin
 * booted once in beforeAll. Call it at the top level of a test file: `await registerConformance(...)`.
 */
export async function registerConformance(kind: KitKind, opts: ConformanceOptions): Promise<void> {
  const { afterAll, beforeAll, describe, it } = await import("vitest");
  const claims = conformanceKit(kind);
  const perClaimMs = Math.max(30_000, 4 * (opts.timeoutMs ?? 10_000) + 2 * (opts.healthTimeoutMs ?? 5_000));
  const label = path.basename(path.resolve(opts.plugin));
  describe(`${kind} conformance: ${label}`, () => {
    if (opts.skip) {
      console.warn(`[patchbay/testing] SKIPPED ${kind} conformance of ${label}: ${opts.skip}`);
      for (const claim of claims) it.skip(claim.name, () => {});
      return;
    }
    let session: Session | null = null;
    beforeAll(async () => {
      session = await openSession(kind, opts);
    }, perClaimMs);
    afterAll(async () => {
      await session?.close();
    }, perClaimMs);
    for (const claim of claims) {
      it(
        claim.name,
        async (ctx) => {
          const result = await runClaim(session!, claim);
          if (result.skipped) {
            ctx.skip(result.reason ?? undefined);
            return;
          }
          if (!result.ok) throw new Error(result.reason ?? "failed");
        },
        perClaimMs,
      );
    }
  });
}
