/**
 * A seeded property test over the real `serve --http`: random client policies × every tool name
 * (listed or not, existing or not). For each client, its tools/list is within what its policy
 * allows, and a call is refused as forbidden exactly when the tool is not in that list. A failure
 * prints the seed; PB_CLIENTS_SEED reruns one.
 */
import { createHash } from "node:crypto";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, describe, expect, it } from "vitest";
import { cleanupTempDirs } from "../helpers.js";
import { gatewayConfig, startHttpServe } from "./_gateway.js";
import { seededRandom as mulberry32 } from "../helpers.js";

afterAll(cleanupTempDirs);

const GW_PARTS = ["echo", "fail", "whoami", "slow", "e*", "*o*", "w?oami", "nope", "*"];
// Only what gateway.expose offers this store: a client naming more is refused at start (clients/ceiling.ts).
const MEM_PARTS = ["query"];

function randomPolicy(rand: () => number): Record<string, boolean | string[]> {
  const pick = (parts: string[]): boolean | string[] => {
    const r = rand();
    if (r < 0.2) return true;
    if (r < 0.35) return false;
    return parts.filter(() => rand() < 0.4);
  };
  const expose: Record<string, boolean | string[]> = {};
  if (rand() < 0.8) expose["mcpConnectors/gw"] = pick(GW_PARTS);
  if (rand() < 0.6) expose["memoryStores/primary"] = pick(MEM_PARTS);
  return expose;
}

/** What a policy allows, computed apart from the gateway's own code: the reference the gateway must match. */
function allowedBy(expose: Record<string, boolean | string[]>, tool: string): boolean {
  const [prefix, ...rest] = tool.split("__");
  const instance = prefix === "gw" ? "mcpConnectors/gw" : prefix === "memory" ? "memoryStores/primary" : null;
  if (!instance) return false;
  const target = instance === "memoryStores/primary" ? rest[rest.length - 1] : rest.join("__");
  const rule = expose[instance];
  if (rule === undefined || rule === false) return false;
  if (rule === true) return true;
  return rule.some((p) => new RegExp(`^${p.replace(/\*/g, ".*").replace(/\?/g, ".")}$`).test(target));
}

describe("client policies, property", () => {
  it("lists ⊆ allowed, and a call is refused as forbidden exactly when its tool is not listed", async () => {
    const seed = Number(process.env.PB_CLIENTS_SEED ?? 20261205);
    const rand = mulberry32(seed);
    const tokens: Record<string, string> = {};
    const clients: Record<string, unknown> = {};
    const policies: Record<string, Record<string, boolean | string[]>> = {};
    for (let i = 0; i < 12; i++) {
      const id = `c${i}`;
      tokens[id] = `token-${seed}-${i}-0123456789`;
      policies[id] = randomPolicy(rand);
      clients[id] = { tokenSha256: createHash("sha256").update(tokens[id]).digest("hex"), expose: policies[id] };
    }
    const { file } = gatewayConfig({ gateway: { clients } });
    const s = await startHttpServe(file, { PATCHBAY_TOKEN: "operator-token-0123456789" });
    try {
      const op = await s.connect();
      const all = (await op.listTools()).tools.map((t) => t.name);
      await op.close();
      // The slow tool would only make the test slow: it is listed and checked, never called.
      const probes = [...all, "gw__nope", "memory__primary__write", "x".repeat(80)].filter((n) => !n.includes("slow"));
      for (const [id, token] of Object.entries(tokens)) {
        const c = await s.connect(token);
        try {
          const listed = (await c.listTools()).tools.map((t) => t.name);
          const context = `seed ${seed}, client ${id}, policy ${JSON.stringify(policies[id])}`;
          for (const name of listed) expect(allowedBy(policies[id], name), `${context}: ${name}`).toBe(true);
          for (const name of all)
            expect(listed.includes(name), `${context}: ${name}`).toBe(allowedBy(policies[id], name));
          for (const name of probes) {
            const outcome = await c.callTool({ name, arguments: { text: "x", id: "x" } }).then(
              () => "answered",
              (e: unknown) => (e instanceof McpError && e.code === -32003 ? "forbidden" : `other ${String(e)}`),
            );
            expect(outcome, `${context}: ${name}`).toBe(listed.includes(name) ? "answered" : "forbidden");
          }
        } finally {
          await c.close();
        }
      }
    } finally {
      await s.stop();
    }
  });
});
