/**
 * The real Codex CLI, offline (the project's Responses API stub on 127.0.0.1): `adapter install`
 * wires its hooks into the user's CODEX_HOME/hooks.json and says Codex will skip them until trusted
 * (doctor too), `adapter install --trust-hooks` has Codex's own app-server trust them (as a user's
 * /hooks review would), a real turn whose apply_patch into a protected folder is blocked by
 * Patchbay's deny, the next turn receives an inbox message through UserPromptSubmit, and `adapter
 * uninstall` restores the user's hooks.json byte for byte and has Codex remove exactly the trust
 * records Patchbay had it write (config.toml is only ever written by Codex). `.ci/codex.sh` installs the client and
 * prints PATCHBAY_CODEX_BIN; without it the test is skipped, saying why.
 */
import { cpSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { adapterDoctor } from "../../src/adapter/doctor.js";
import { startResponsesStub } from "../../src/adapter/certify/responses-stub.js";
import type { StubRequest } from "../../src/adapter/certify/stub-server.js";
import { addFile, offlineConfig, offlineEnv, stepOf } from "../../plugins/codex/src/certify.js";
import { cleanupTempDirs, ROOT, runCli, tempDir } from "../helpers.js";
import { INBOX_MESSAGE, realClientProject, runClient } from "./_client.js";

afterAll(cleanupTempDirs);

const CODEX = process.env.PATCHBAY_CODEX_BIN;
if (!CODEX)
  console.log(
    "skipping the real Codex test: PATCHBAY_CODEX_BIN is not set (run .ci/codex.sh, which installs @openai/codex outside the project)",
  );

describe.runIf(!!CODEX)("the real Codex client", () => {
  it("install, trust, a blocked protected write, an inbox message on the next turn, uninstall byte for byte", async () => {
    const w = realClientProject({
      prefix: "pb-real-codex-",
      client: CODEX!,
      command: "codex",
      plugin: "codex",
      instance: "codex",
      dirs: ({ home }) => [path.join(home, ".codex")],
    });
    const { project, home, bin, config, secret } = w;
    const codexHome = path.join(home, ".codex");

    let turn = 0;
    const stub = await startResponsesStub((req: StubRequest) => {
      if (turn === 1 && stepOf(req) === 0)
        return [{ type: "custom_tool_call", name: "apply_patch", input: addFile(secret, "leak") }];
      return [{ type: "text", text: "done" }];
    });
    try {
      // The user's own files, in their own formatting: uninstall must give hooks.json's exact bytes back.
      const hooksFile = path.join(codexHome, "hooks.json");
      const originalHooks =
        '{\n    "hooks": { "Stop": [ { "hooks": [ { "type": "command", "command": "true" } ] } ] }\n}\n';
      writeFileSync(hooksFile, originalHooks);
      const toml = path.join(codexHome, "config.toml");
      const originalToml = `# my Codex settings\n${offlineConfig(stub.url)}`;
      writeFileSync(toml, originalToml);

      const env = { HOME: home, PATH: `${bin}:/usr/bin:/bin` };
      const installed = await w.adapter("install", env);
      expect(installed.code, installed.stderr).toBe(0);
      expect(installed.stdout).toContain("INACTIVE: Codex skips these hooks");
      expect(readFileSync(hooksFile, "utf8")).toContain("PreToolUse");
      expect(readFileSync(toml, "utf8"), "install leaves config.toml alone").toBe(originalToml);
      const codes = async () => (await adapterDoctor({ config, env })).adapters[0].diagnostics.map((d) => d.code);
      expect(await codes()).toContain("hooks-untrusted");

      // The user's own Stop hook is not Patchbay's: --trust-hooks must not trust it.
      const userKey = `${hooksFile}:stop:0:0`;
      const trustCli = (args: string[]) =>
        runCli(["adapter", "install", "codex", ...args, "--json", "--config", config], { cwd: project, env });
      const trusting = await trustCli(["--trust-hooks"]);
      expect(trusting.code, trusting.stdout + trusting.stderr).toBe(0);
      const trust = JSON.parse(trusting.stdout).adapters[0] as {
        inactive: unknown;
        trust: { trusted: string[]; already: string[] };
      };
      expect(trust.inactive).toBeNull();
      expect(trust.trust.trusted.map((k) => k.split(":").at(-3)).sort()).toEqual([
        "pre_tool_use",
        "session_end",
        "session_start",
        "user_prompt_submit",
      ]);
      expect(trust.trust.trusted).not.toContain(userKey);
      const trustedToml = readFileSync(toml, "utf8");
      for (const k of trust.trust.trusted) expect(trustedToml).toContain(`[hooks.state."${k}"]`);
      expect(trustedToml).not.toContain(userKey);
      expect(await codes()).not.toContain("hooks-untrusted");
      // Again: nothing left to trust, and install no longer says the hooks are inactive.
      const again = JSON.parse((await trustCli(["--trust-hooks"])).stdout).adapters[0];
      expect(again.trust).toEqual({ trusted: [], already: trust.trust.trusted });
      expect(JSON.parse((await trustCli([])).stdout).adapters[0].inactive).toBeNull();

      const clientEnv = { ...offlineEnv(home, codexHome), PATH: `${bin}:/usr/bin:/bin` };

      turn = 1;
      const first = await runClient(CODEX!, ["exec", "--skip-git-repo-check", "write the secret"], project, clientEnv);
      expect(first.exitCode, first.stderr).toBe(0);
      expect(existsSync(secret)).toBe(false);
      expect(
        stub.requests.some((r) => r.text.includes("Patchbay protects")),
        "the deny reason reached the model as the tool's output",
      ).toBe(true);

      await w.deliver(env);
      turn = 2;
      const seen = stub.requests.length;
      const second = await runClient(CODEX!, ["exec", "--skip-git-repo-check", "anything new?"], project, clientEnv);
      expect(second.exitCode, second.stderr).toBe(0);
      expect(
        stub.requests.slice(seen).some((r) => r.text.includes(INBOX_MESSAGE)),
        "the inbox message reached the next turn's request",
      ).toBe(true);

      const removed = await w.adapter("uninstall", env);
      expect(removed.code, removed.stdout + removed.stderr).toBe(0);
      expect(readFileSync(hooksFile, "utf8")).toBe(originalHooks);
      for (const k of trust.trust.trusted) expect(removed.stdout).toContain(`untrusted ${k}`);
      const afterToml = readFileSync(toml, "utf8");
      for (const k of trust.trust.trusted) expect(afterToml).not.toContain(k);
      expect(afterToml.startsWith(originalToml), "Codex kept the user's own settings").toBe(true);
    } finally {
      await stub.close();
    }
  }, 300_000);

  it("`adapter certify` captures the real client: the adapter's deny passes, a deny shape Codex ignores stays on record as `fail`", async () => {
    const root = tempDir("pb-certify-codex-");
    const plugins = path.join(root, "plugins");
    cpSync(path.join(ROOT, "plugins", "codex"), path.join(plugins, "codex"), { recursive: true });
    const config = path.join(root, "connectors.json");
    writeFileSync(
      config,
      JSON.stringify({
        plugins: [plugins],
        adapters: { codex: { plugin: "codex", config: { hook_timeout_ms: 30_000 } } },
      }),
    );
    const env = { HOME: root, PATH: "/usr/bin:/bin" };
    const certify = async (exitCode: number) => {
      const r = await runCli(
        ["adapter", "certify", "codex", "--client", CODEX!, "--dry-run", "--json", "--config", config],
        { cwd: root, env, timeoutMs: 240_000 },
      );
      expect(r.code, r.stderr).toBe(exitCode); // any failing entry makes the run unhealthy (1)
      return JSON.parse(r.stdout) as {
        written: boolean;
        entries: { capability: string; result: string; events?: string[]; fixture: string }[];
      };
    };
    const good = await certify(0);
    expect(good.written).toBe(false);
    expect(good.entries.find((e) => e.capability === "guards.beforeWrite")).toMatchObject({
      result: "pass",
      events: ["PreToolUse"],
      fixture: expect.stringMatching(/-PreToolUse-apply_patch\.json$/),
    });
    expect(good.entries.every((e) => e.result === "pass")).toBe(true);

    // The same adapter answering with {"decision":"deny"}, which Codex ignores: the write lands, and certify says so.
    const hooks = path.join(plugins, "codex", "src", "hooks.ts");
    writeFileSync(
      hooks,
      // Matched by shape, not layout: the formatter may wrap the declaration.
      readFileSync(hooks, "utf8").replace(
        /permissionDenyOutcome\(\s*reason,\s*"PreToolUse",?\s*\)/,
        '({ stdout: JSON.stringify({ decision: "deny", reason }), stderr: "", exitCode: 0 })',
      ),
    );
    expect(readFileSync(hooks, "utf8")).toContain('{ decision: "deny", reason }');
    const bad = await certify(1);
    expect(bad.entries.find((e) => e.capability === "guards.beforeWrite")).toMatchObject({ result: "fail" });
    expect(bad.entries.find((e) => e.capability === "context.beforeTurnInjection")).toMatchObject({ result: "pass" });
  }, 600_000);
});
