/**
 * The audit trail of the real `serve --http`: two clients and the operator call tools and read a
 * resource; .patchbay/audit.log then holds one line per request that reached an instance, each
 * with every field and the right client id, none with an argument's value, and all of them
 * written by a clean shutdown. `patchbay audit` reads them back, filtered. A trail that cannot be
 * written is said once, with its code, and never fails a call.
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, describe, expect, it } from "vitest";
import { cleanupTempDirs, runCli } from "../helpers.js";
import { startHttpServe } from "./_gateway.js";
import { everythingConfig } from "./_updates.js";
import { ALPHA, auditConfig, auditLines, BETA, env, OPERATOR, type Line } from "./_audit.js";

afterAll(cleanupTempDirs);

// Looks like a live API key: exactly what must never reach the trail.
const SECRET = "sk-live-9f8e7d6c5b4a39281706f5e4d3c2b1a0";

describe("the audit trail of serve --http", () => {
  it("records each request that reached an instance, by client, with sizes and codes but no values", async () => {
    const { dir, file } = auditConfig();
    const s = await startHttpServe(file, env);
    const op = await s.connect(OPERATOR);
    const alpha = await s.connect(ALPHA);
    const beta = await s.connect(BETA);
    try {
      await op.callTool({
        name: "gw__echo",
        arguments: { text: "from the operator" },
        _meta: { "patchbay/idempotency-key": "key-001" },
      });
      const echoed = await alpha.callTool({ name: "gw__echo", arguments: { text: SECRET } });
      expect(echoed.isError).not.toBe(true);
      expect((await alpha.callTool({ name: "gw__fail", arguments: {} })).isError).toBe(true);
      // Refused at the gateway: it never reaches an instance, so it is no entry.
      const refused = await alpha.callTool({ name: "gw__whoami", arguments: {} }).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(McpError);
      const read = await alpha.readResource({ uri: "plain://one" });
      expect(read.contents[0]).toMatchObject({ uri: "plain://one" });
      await beta.callTool({ name: "gw__whoami", arguments: {} });
    } finally {
      await Promise.all([op.close(), alpha.close(), beta.close()]);
      // SIGTERM at once: what is still buffered must be written by the shutdown.
      expect(await s.stop()).toBe(0);
    }
    const { raw, lines } = auditLines(dir);
    expect(raw).not.toContain(SECRET);
    expect(raw).not.toContain("from the operator");
    expect(raw).not.toContain(ALPHA);
    expect(lines.map((l) => `${l.client} ${l.kind} ${l.name}`)).toEqual([
      "operator tool gw__echo",
      "alpha tool gw__echo",
      "alpha tool gw__fail",
      "alpha resource plain://one",
      "beta tool gw__whoami",
    ]);
    for (const l of lines) {
      expect(Object.keys(l).sort()).toEqual(
        [
          "bytesIn",
          "bytesOut",
          "client",
          "durationMs",
          "idempotencyKey",
          "instance",
          "kind",
          "name",
          "outcome",
          "session",
          "time",
        ].sort(),
      );
      expect(Date.now() - Date.parse(l.time)).toBeLessThan(120_000);
      expect(typeof l.session).toBe("string");
      expect(l.durationMs).toBeGreaterThanOrEqual(0);
      expect(l.bytesOut).toBeGreaterThan(0);
    }
    const [opEcho, alphaEcho, alphaFail, alphaRead, betaWho] = lines as [Line, Line, Line, Line, Line];
    expect(opEcho).toMatchObject({ instance: "mcpConnectors/gw", outcome: "ok", idempotencyKey: "key-001" });
    expect(alphaEcho).toMatchObject({ outcome: "ok", idempotencyKey: null });
    expect(alphaEcho.bytesIn).toBe(Buffer.byteLength(JSON.stringify({ text: SECRET })));
    expect(alphaFail.outcome).not.toBe("ok");
    expect(alphaRead).toMatchObject({ instance: "mcpConnectors/res", outcome: "ok" });
    expect(alphaRead.bytesIn).toBe(Buffer.byteLength("plain://one"));
    expect(betaWho).toMatchObject({ instance: "mcpConnectors/gw", outcome: "ok" });
    // One session per connection: alpha's three requests share one, the others have their own.
    expect(new Set([alphaEcho.session, alphaFail.session, alphaRead.session]).size).toBe(1);
    expect(new Set([opEcho.session, alphaEcho.session, betaWho.session]).size).toBe(3);

    // `patchbay audit` reads them back: a's lines only, in one JSON document.
    const json = await runCli(["audit", "--client", "alpha", "--since", "10m", "--json", "--config", file], {
      cwd: dir,
    });
    expect(json.stderr).toBe("");
    expect(json.code).toBe(0);
    const doc = JSON.parse(json.stdout) as { source: string; client: string; entries: Line[] };
    expect(doc).toMatchObject({ source: "file", client: "alpha" });
    expect(doc.entries).toEqual(lines.filter((l) => l.client === "alpha"));

    const human = await runCli(["audit", "--config", file], { cwd: dir });
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/CLIENT[\s\S]*operator[\s\S]*alpha[\s\S]*resource plain:\/\/one[\s\S]*beta/);
    const none = await runCli(["audit", "--client", "nobody", "--config", file], { cwd: dir });
    expect(none.stdout).toContain('No audit entries of client "nobody"');
  });

  it("goes on serving when the trail cannot be written, and says so once with its code", async () => {
    const { dir, file } = auditConfig();
    // A folder where the file should be: every append fails.
    mkdirSync(path.join(dir, ".patchbay", "audit.log"), { recursive: true });
    const s = await startHttpServe(file, env);
    const alpha = await s.connect(ALPHA);
    try {
      for (let i = 0; i < 3; i++) {
        const r = await alpha.callTool({ name: "gw__echo", arguments: { text: `call ${i}` } });
        expect(r.isError).not.toBe(true);
        // Past the batch delay: each call's entry is its own failed write.
        await new Promise((r) => setTimeout(r, 250));
      }
    } finally {
      await alpha.close();
      await s.stop();
    }
    // Once at the first lost entry, and the count at shutdown.
    const said = s.stderr().match(/PB_ERR_AUDIT_WRITE/g) ?? [];
    expect(said).toHaveLength(2);
    expect(s.stderr()).toMatch(/the audit trail lost 3 entries in \S+audit\.log while this serve ran/);
    expect(s.stderr()).toContain("audit.log");
    expect(s.stderr()).not.toContain(OPERATOR);
  });

  it("records prompts/get and an upstream's JSON-RPC error by its code, without the prompt's arguments", async () => {
    const { dir, file } = everythingConfig();
    const s = await startHttpServe(file, env);
    const op = await s.connect(OPERATOR);
    let missing: unknown;
    try {
      const got = await op.getPrompt({ name: "everything__args-prompt", arguments: { city: SECRET } });
      expect(JSON.stringify(got)).toContain(SECRET);
      missing = await op.readResource({ uri: "demo://resource/static/document/no-such.md" }).catch((e: unknown) => e);
      expect(missing).toBeInstanceOf(McpError);
    } finally {
      await op.close();
      expect(await s.stop()).toBe(0);
    }
    const { raw, lines } = auditLines(dir);
    expect(raw).not.toContain(SECRET);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({
      client: "operator",
      instance: "mcpConnectors/everything",
      kind: "prompt",
      name: "everything__args-prompt",
      outcome: "ok",
      bytesIn: Buffer.byteLength(JSON.stringify({ city: SECRET })),
    });
    expect(lines[0].bytesOut).toBeGreaterThan(0);
    expect(lines[1]).toMatchObject({
      kind: "resource",
      name: "demo://resource/static/document/no-such.md",
      outcome: String((missing as McpError).code),
      bytesOut: 0,
    });
  });
});
