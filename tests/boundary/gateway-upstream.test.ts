/**
 * The attack suite's upstream part: a hostile MCP server (tests/fixtures/mcp/hostile-server.mjs,
 * a real child process behind mcp-remote in a real worker) asks this client for sampling,
 * elicitation and roots as often as it likes, during a call and with no call in flight. Each is
 * bounded: only while a call of that instance runs (unless client_requests.outside_calls), at most
 * client_requests.per_minute a minute and client_requests.total in all, refused past that with
 * PB_ERR_CLIENT_REQUEST_REFUSED, and counted in the instance's status row.
 */
import { readFileSync, existsSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cleanupTempDirs, tempDir, waitFor } from "../helpers.js";
import { bootMcp, HOSTILE, type TestHost } from "../mcp/_host.js";

afterAll(cleanupTempDirs);

const MODEL = { plugins: ["tests/fixtures/mcp/plugins"], localModels: { small: { plugin: "fx-sampling-model" } } };
const asker = (clientRequests: Record<string, unknown>) => ({
  plugin: "mcp-remote",
  timeout_ms: 30_000,
  grants: ["localModels/small"],
  config: {
    command: "node",
    args: [HOSTILE],
    sampling: { model: "localModels/small", max_tokens: 16 },
    roots: [{ uri: "file:///tmp" }],
    client_requests: clientRequests,
  },
});

async function flood(
  t: TestHost,
  instance: string,
  kind: string,
  count: number,
): Promise<{ ok: number; refused: number; first_error: string | null }> {
  const result = (await t.host.call(`mcpConnectors/${instance}`, "call", ["ask-flood", { kind, count }])) as {
    content: { text: string }[];
  };
  return JSON.parse(result.content[0].text);
}

/** The instance's status row once its counts reached `want` (they travel as log data: wait for them). */
async function countsReach(t: TestHost, instance: string, want: { served: number; refused: number }) {
  await t.waitLog(
    (r) => {
      const c = r.client_requests as { served: number; refused: number } | undefined;
      return r.instance === `mcpConnectors/${instance}` && c?.served === want.served && c?.refused === want.refused;
    },
    `client_requests ${JSON.stringify(want)} for ${instance}`,
  );
  return t.host.liveStatus().find((s) => s.id === `mcpConnectors/${instance}`)!.clientRequests;
}

describe("an upstream server asking this client for work", () => {
  it("gets at most per_minute sampling requests served during a call; the rest are refused with the code and counted", async () => {
    const t = await bootMcp({ rate: asker({ per_minute: 5 }) }, MODEL);
    try {
      const out = await flood(t, "rate", "sampling", 20);
      expect(out).toMatchObject({ ok: 5, refused: 15 });
      expect(out.first_error).toContain("PB_ERR_CLIENT_REQUEST_REFUSED");
      expect(out.first_error).toContain("per_minute");
      expect(await countsReach(t, "rate", { served: 5, refused: 15 })).toEqual({ served: 5, refused: 15 });
      // The model was driven 5 times, not 20.
      expect(t.logs.filter((l) => l.msg === "serving a sampling request").length).toBe(5);
    } finally {
      await t.host.close();
    }
  });

  it("gets no more than total over the instance's life, whatever the rate allows", async () => {
    const t = await bootMcp({ spend: asker({ per_minute: 1_000, total: 4 }) }, MODEL);
    try {
      expect(await flood(t, "spend", "sampling", 3)).toMatchObject({ ok: 3, refused: 0 });
      const out = await flood(t, "spend", "elicitation", 5);
      expect(out).toMatchObject({ ok: 1, refused: 4 });
      expect(out.first_error).toContain("total");
    } finally {
      await t.host.close();
    }
  });

  it("gets no sampling or elicitation while no call of its instance is in flight; roots within the rate only", async () => {
    const t = await bootMcp({ idle: asker({}) }, MODEL);
    const out = path.join(tempDir("pb-asks-"), "outcomes.txt");
    try {
      const outcomes = (n: number) =>
        waitFor(async () => {
          const l = existsSync(out) ? readFileSync(out, "utf8").trim().split("\n") : [];
          if (l.length < n) throw new Error(`${l.length} outcomes so far`);
          return l;
        }, 600);
      let lines: string[] = [];
      // One kind at a time: the next call must not be in flight while the last kind is still asking.
      for (const [i, kind] of ["sampling", "elicitation"].entries()) {
        const result = (await t.host.call("mcpConnectors/idle", "call", [
          "ask-flood",
          { kind, count: 3, after: true, out },
        ])) as { content: { text: string }[] };
        expect(result.content[0].text).toBe("asking later");
        lines = await outcomes(3 * (i + 1));
      }
      expect(lines).toHaveLength(6);
      expect(lines.filter((l) => !l.includes("PB_ERR_CLIENT_REQUEST_REFUSED"))).toEqual([]);
      expect(lines.join("\n")).toContain("no tool call of this instance is in flight");
      expect(t.logs.some((l) => l.msg === "serving a sampling request")).toBe(false);
      expect(await countsReach(t, "idle", { served: 0, refused: 6 })).toEqual({ served: 0, refused: 6 });
      // roots/list is a fixed answer servers ask at start: served outside calls, up to per_minute (30 by default).
      const roots = (await t.host.call("mcpConnectors/idle", "call", [
        "ask-flood",
        { kind: "roots", count: 3, after: true, out },
      ])) as { content: { text: string }[] };
      expect(roots.content[0].text).toBe("asking later");
      expect((await outcomes(9)).slice(6)).toEqual(["ok", "ok", "ok"]);
    } finally {
      await t.host.close();
    }
  });
});

describe("an upstream server answering what was never asked, or flooding its log", () => {
  it("cannot settle a call with a forged response id: the real answer arrives, the instance stays in service", async () => {
    const t = await bootMcp({
      forger: { plugin: "mcp-remote", timeout_ms: 30_000, config: { command: "node", args: [HOSTILE] } },
    });
    try {
      const r = (await t.host.call("mcpConnectors/forger", "call", ["forge-response", {}])) as {
        content: { text: string }[];
      };
      expect(r.content[0].text).toBe("real answer");
      const again = (await t.host.call("mcpConnectors/forger", "call", ["ok", {}])) as { content: { text: string }[] };
      expect(again.content[0].text).toBe("ok");
      expect(t.host.liveStatus().find((s) => s.id === "mcpConnectors/forger")).toMatchObject({ state: "ready" });
    } finally {
      await t.host.close();
    }
  });

  it("cannot hold a call past its deadline with a log flood, nor take the instance out of service", async () => {
    const t = await bootMcp({
      flooder: { plugin: "mcp-remote", timeout_ms: 3_000, config: { command: "node", args: [HOSTILE] } },
    });
    try {
      // Far more lines than any machine relays within the deadline: 200,000 took under 3 s on an idle one.
      const err = await t.host
        .call("mcpConnectors/flooder", "call", ["flood", { count: 2_000_000 }])
        .catch((e: { code?: string }) => e);
      expect(err).toMatchObject({ code: "PB_ERR_CALL_TIMEOUT" });
      await expect(t.host.call("mcpConnectors/flooder", "health_check", [])).resolves.toBe(true);
      expect(t.host.liveStatus().find((s) => s.id === "mcpConnectors/flooder")).toMatchObject({ state: "ready" });
      // The flood reached the log bounded: dropped lines are counted, not written.
      expect(t.logs.some((l) => String(l.msg).includes("server log messages dropped"))).toBe(true);
    } finally {
      await t.host.close();
    }
  });
});
