/**
 * Helpers for the audit trail tests: a gateway with two clients and a resource connector, the
 * trail's lines read back, and a wait that resolves when the trail holds what a test expects
 * (entries are written a batch at a time, off the call's path).
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { tempDir, writeConfig } from "../helpers.js";

export const OPERATOR = "operator-token-0123456789";
export const ALPHA = "alpha-token-0123456789abcdef";
export const BETA = "beta-token-0123456789abcdef";
const sha = (s: string) => createHash("sha256").update(s).digest("hex");

export const env = { PATCHBAY_TOKEN: OPERATOR };

/** alpha (ALPHA's token) may use echo, fail and the res connector; beta (BETA's) only whoami. */
export function auditClients(alpha = "alpha", beta = "beta"): Record<string, unknown> {
  return {
    [alpha]: {
      tokenSha256: sha(ALPHA),
      expose: { "mcpConnectors/gw": ["echo", "fail"], "mcpConnectors/res": true },
    },
    [beta]: { tokenSha256: sha(BETA), expose: { "mcpConnectors/gw": ["whoami"] } },
  };
}

/** gw (fx-gw-mcp) and res (a resource connector); alpha may use echo, fail and res, beta only whoami. */
export function auditConfig(gateway: Record<string, unknown> = {}, dir = tempDir("pb-audit-")) {
  const healthFile = path.join(dir, "health");
  writeFileSync(healthFile, "ok");
  return writeConfig(
    {
      defaults: { timeout_ms: 5_000, health_interval_ms: 1_000 },
      mcpConnectors: {
        gw: {
          plugin: "fx-gw-mcp",
          allowed_tools: ["echo", "fail", "slow", "whoami"],
          config: { health_file: healthFile },
        },
        res: { plugin: "fx-mcp-subscribe" },
      },
      gateway: { clients: auditClients(), ...gateway },
    },
    dir,
  );
}

export interface Line {
  time: string;
  client: string;
  session: string | null;
  instance: string;
  kind: string;
  name: string;
  outcome: string;
  durationMs: number;
  bytesIn: number;
  bytesOut: number;
  idempotencyKey: string | null;
}

export function auditLines(dir: string): { raw: string; lines: Line[] } {
  const file = path.join(dir, ".patchbay", "audit.log");
  const raw = existsSync(file) ? readFileSync(file, "utf8") : "";
  return {
    raw,
    lines: raw
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Line),
  };
}

/** Resolves once `ok` holds of the trail (polled: the file has no event to wait on), or fails after `ms`. */
export async function untilTrail<T>(read: () => T, ok: (v: T) => boolean, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = read();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`the audit trail never got there: ${JSON.stringify(v).slice(0, 2000)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
