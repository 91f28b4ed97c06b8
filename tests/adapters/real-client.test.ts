/**
 * The real Claude Code client, offline (the project's Messages API stub on 127.0.0.1): `adapter
 * install` wires its hooks, a real turn whose Write into a protected folder is blocked by
 * Patchbay's deny, the next turn receives an inbox message through UserPromptSubmit, and `adapter
 * uninstall` restores the user's settings file byte for byte. `.ci/claude-code.sh` installs the
 * client and prints PATCHBAY_CLAUDE_BIN; without it the test is skipped, saying why.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { adapterDoctor } from "../../src/adapter/doctor.js";
import { certifyAdapter } from "../../src/adapter/certify/certify.js";
import { treeHash } from "../../src/adapter/install/hash.js";
import { offlineEnv } from "../../plugins/claude-code/src/certify.js";
import { INBOX_MESSAGE, realClientProject, runClient } from "./_client.js";
import { startMessagesStub, type StubRequest } from "../../src/adapter/certify/messages-stub.js";
import { cleanupTempDirs, ROOT, runCli, tempDir } from "../helpers.js";

afterAll(cleanupTempDirs);

const CLAUDE = process.env.PATCHBAY_CLAUDE_BIN;
if (!CLAUDE)
  console.log(
    "skipping the real Claude Code test: PATCHBAY_CLAUDE_BIN is not set (run .ci/claude-code.sh, which installs @anthropic-ai/claude-code outside the project)",
  );

// Each test drives real Claude Code sessions (a certification runs one per capability): about 3
// minutes on a loaded 2-core machine, so the budgets are a few times that; they only end a hang.
describe.runIf(!!CLAUDE)("the real Claude Code client", () => {
  it("install, a blocked protected write, an inbox message on the next turn, uninstall byte for byte", async () => {
    const w = realClientProject({
      prefix: "pb-real-claude-",
      client: CLAUDE!,
      command: "claude",
      plugin: "claude-code",
      instance: "claude",
      dirs: ({ project }) => [path.join(project, ".claude")],
    });
    const { project, home, bin, config, secret } = w;
    // The user's own settings, in their own formatting: uninstall must give these exact bytes back.
    const settings = path.join(project, ".claude", "settings.local.json");
    const original =
      '{\n    "permissions": { "allow": ["Bash(ls:*)"] },\n    "hooks": { "Stop": [ { "hooks": [ { "type": "command", "command": "true" } ] } ] }\n}\n';
    writeFileSync(settings, original);

    const env = { HOME: home, PATH: `${bin}:/usr/bin:/bin` };
    const installed = await w.adapter("install", env);
    expect(installed.code, installed.stderr).toBe(0);
    expect(readFileSync(settings, "utf8")).toContain("PreToolUse");

    let turn = 0;
    const stub = await startMessagesStub((req: StubRequest) => {
      const tools = Array.isArray(req.body.tools) ? req.body.tools.length : 0;
      const assistant = (req.body.messages as { role: string }[]).filter((m) => m.role === "assistant").length;
      if (tools === 0) return [{ type: "text", text: "ok" }];
      if (turn === 1 && assistant === 0)
        return [{ type: "tool_use", name: "Write", input: { file_path: secret, content: "leak\n" } }];
      return [{ type: "text", text: "done" }];
    });
    try {
      // The hooks Claude runs inherit this environment. Until a hook has read connectors.json its bound
      // is the default 5 s, which a loaded machine can spend starting node: the guard would fail open
      // and the write go through. 9.5 s stays inside the 10 s Claude gives each hook.
      const clientEnv = {
        ...offlineEnv(home, stub.url),
        PATH: `${bin}:/usr/bin:/bin`,
        PATCHBAY_HOOK_TIMEOUT_MS: "9500",
      };
      turn = 1;
      const first = await runClient(
        CLAUDE!,
        ["-p", "write the secret", "--permission-mode", "bypassPermissions"],
        project,
        clientEnv,
      );
      expect(first.exitCode, first.stderr).toBe(0);
      expect(existsSync(secret)).toBe(false);
      const denied = stub.requests.find((r) => r.text.includes("Patchbay protects"));
      expect(denied, "the deny reason reached the model as the tool's result").toBeDefined();

      await w.deliver(env);
      turn = 2;
      const seen = stub.requests.length;
      const second = await runClient(
        CLAUDE!,
        ["-p", "anything new?", "--permission-mode", "bypassPermissions"],
        project,
        clientEnv,
      );
      expect(second.exitCode, second.stderr).toBe(0);
      expect(
        stub.requests.slice(seen).some((r) => r.text.includes(INBOX_MESSAGE)),
        "the inbox message reached the next turn's request",
      ).toBe(true);
      const inbox = await runCli(["adapter", "inbox", "claude", "--json", "--config", config], { cwd: project, env });
      expect(JSON.parse(inbox.stdout)).toMatchObject({ pending: 0 });
    } finally {
      await stub.close();
    }

    const removed = await w.adapter("uninstall", env);
    expect(removed.code, removed.stderr).toBe(0);
    expect(readFileSync(settings, "utf8")).toBe(original);
  }, 600_000);

  it("`adapter certify --dry-run` shows the entries and writes nothing; an operator's certification lands in .patchbay, not in the plugin", async () => {
    const root = tempDir("pb-certify-");
    const plugins = path.join(root, "plugins");
    cpSync(path.join(ROOT, "plugins", "claude-code"), path.join(plugins, "claude-code"), { recursive: true });
    // As if this client version were newer than the plugin's evidence.
    writeFileSync(
      path.join(plugins, "claude-code", "certification.json"),
      JSON.stringify({ schemaVersion: 1, adapter: "claude-code", evidence: [] }),
    );
    const bin = path.join(root, "bin");
    mkdirSync(bin);
    symlinkSync(CLAUDE!, path.join(bin, "claude"));
    const config = path.join(root, "connectors.json");
    writeFileSync(config, JSON.stringify({ plugins: [plugins], adapters: { claude: { plugin: "claude-code" } } }));
    const env = { HOME: root, PATH: `${bin}:/usr/bin:/bin` };

    const dry = await runCli(
      ["adapter", "certify", "claude", "--client", CLAUDE!, "--dry-run", "--json", "--config", config],
      { cwd: root, env, timeoutMs: 400_000 },
    );
    expect(dry.code, dry.stderr).toBe(0);
    const doc = JSON.parse(dry.stdout);
    expect(doc).toMatchObject({ ok: true, written: false, platform: expect.any(String) });
    const guard = doc.entries.find((e: { capability: string }) => e.capability === "guards.beforeWrite");
    expect(guard).toMatchObject({
      result: "pass",
      events: ["PreToolUse"],
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      fixture: expect.stringMatching(/^fixtures\/captures\/.+-PreToolUse-Write\.json$/),
    });
    expect(existsSync(path.join(root, ".patchbay", "certification"))).toBe(false);

    const before = treeHash(path.join(plugins, "claude-code"));
    expect((await adapterDoctor({ config, env })).adapters[0].effective).toEqual([]);
    const report = await certifyAdapter({ adapter: "claude", client: CLAUDE!, config, env, into: "local" });
    expect(report.target).toBe(path.join(root, ".patchbay", "certification", "claude"));
    expect(treeHash(path.join(plugins, "claude-code"))).toBe(before);
    const after = (await adapterDoctor({ config, env })).adapters[0];
    expect(after.effective).toEqual(
      expect.arrayContaining(["guards.beforeWrite", "context.beforeTurnInjection", "delivery.nextTurn"]),
    );
  }, 900_000);
});
