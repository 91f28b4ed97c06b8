/**
 * The head start's part in starting a stdio server ahead of its instance (spawn/prespawn.ts says
 * why and what): the servers the last boot's mcp-remote spawned, kept in catalog.json next to the
 * answers under the same key, read back only when their code checks out. A catalog.json written by
 * anyone without catalog.key may change the answers a client sees, never what this host runs.
 * Node built-ins only: it runs before the CLI has loaded (bin/patchbay.mjs).
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import type { PrespawnOrder, PrespawnSpec } from "../contract/rpc.js";

/** What catalog.json keeps: the specs, and their code under the stamp they were saved with. */
export interface SavedPrespawns {
  specs: PrespawnSpec[];
  mac: string;
}

/** Never more than this many are read back (a boot's warm threads are fewer still). */
const MAX_SPECS = 16;

export function prespawnMac(key: Buffer, stamp: string, specs: readonly PrespawnSpec[]): string {
  return createHmac("sha256", key)
    .update(JSON.stringify(["prespawn", stamp, specs]))
    .digest("hex");
}

export function savedPrespawns(key: Buffer, stamp: string, specs: readonly PrespawnSpec[]): SavedPrespawns | undefined {
  return specs.length > 0 ? { specs: [...specs], mac: prespawnMac(key, stamp, specs) } : undefined;
}

const isText = (v: unknown): v is string => typeof v === "string";

function isSpec(v: unknown): v is PrespawnSpec {
  if (typeof v !== "object" || v === null) return false;
  const s = v as Record<string, unknown>;
  return (
    isText(s.instance) &&
    isText(s.command) &&
    s.command !== "" &&
    isText(s.cwd) &&
    Array.isArray(s.args) &&
    s.args.every(isText) &&
    Array.isArray(s.env) &&
    s.env.every(isText)
  );
}

/**
 * The servers to start from `saved` (catalog.json's, its stamp already checked against `stamp`),
 * each with its environment's values from `env` as they are now; none unless the code holds.
 */
export function prespawnOrders(
  saved: unknown,
  key: Buffer,
  stamp: string,
  env: Record<string, string | undefined>,
): PrespawnOrder[] {
  if (typeof saved !== "object" || saved === null) return [];
  const { specs, mac } = saved as Record<string, unknown>;
  if (!Array.isArray(specs) || specs.length > MAX_SPECS || !specs.every(isSpec) || !isText(mac)) return [];
  const want = Buffer.from(prespawnMac(key, stamp, specs));
  if (mac.length !== want.length || !timingSafeEqual(Buffer.from(mac), want)) return [];
  return specs.map(({ env: names, ...spec }) => {
    const values: Record<string, string> = {};
    for (const name of names) {
      const value = env[name];
      if (value !== undefined) values[name] = value;
    }
    return { ...spec, env: values };
  });
}
