/**
 * The fast hook path (src/cli/hook-fast.ts): a certified PreToolUse answered from the pre-compiled
 * adapter cache, the same bytes as the full path; any change to what the cache was built from
 * sends the hook back to the full path; it fails open within its bound; and bad input — not JSON,
 * 10 MB, an unknown event, no connectors.json — allows with one hooks.log line and nothing of the
 * prompt in any log. Real `patchbay hook` processes, a fake `claude` printing a certified version.
 */
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { currentPlatform } from "../../src/adapter/certification.js";
import { createHost } from "../../src/index.js";
import { BIN, cleanupTempDirs, runCli, tempDir } from "../helpers.js";
import { logEntries, makeWorld, type World } from "./_world.js";

afterAll(cleanupTempDirs);

const certified = currentPlatform() === "linux-x64";

function claudeWorld(): World {
  const world = makeWorld({ adapters: { claude: { plugin: "claude-code", config: { protect: ["secrets"] } } } });
  world.fakeClient("claude", "2.1.197 (Claude Code)");
  mkdirSync(path.join(world.project, "secrets"));
  return world;
}

const write = (world: World, file: string) => ({
  session_id: "s-1",
  cwd: world.project,
  hook_event_name: "PreToolUse",
  tool_name: "Write",
  tool_input: { file_path: path.join(world.project, file), content: "x" },
});

describe.runIf(certified)("the fast hook path", () => {
  it("answers a certified deny from the compiled cache with the bytes the full path wrote", async () => {
    const world = claudeWorld();
    const full = await world.hook("claude", "PreToolUse", write(world, "secrets/k.txt"));
    expect(logEntries(world).at(-1)).toMatchObject({ decision: "deny" });
    expect(logEntries(world).at(-1)?.fast).toBeUndefined();
    const fast = await world.hook("claude", "PreToolUse", write(world, "secrets/k.txt"));
    expect(fast).toMatchObject({ code: 0, stdout: full.stdout });
    expect(JSON.parse(fast.stdout).hookSpecificOutput).toMatchObject({
      hookEventName: "PreToolUse",
      permissionDecision: "deny",
    });
    expect(logEntries(world).at(-1)).toMatchObject({ decision: "deny", fast: true, client: "claude-code@2.1.197" });
    const allowed = await world.hook("claude", "PreToolUse", write(world, "secrets-backup/k.txt"));
    expect(allowed).toMatchObject({ code: 0, stdout: "" });
    expect(logEntries(world).at(-1)).toMatchObject({ decision: "allow", fast: true });
  });

  it("goes back to the full path when connectors.json or the client changes", async () => {
    const world = claudeWorld();
    await world.hook("claude", "PreToolUse", write(world, "secrets/k.txt"));
    world.writeConfig({ adapters: { claude: { plugin: "claude-code", config: { protect: ["elsewhere"] } } } });
    const moved = await world.hook("claude", "PreToolUse", write(world, "secrets/k.txt"));
    expect(moved.stdout).toBe("");
    expect(logEntries(world).at(-1)?.fast).toBeUndefined();
    world.fakeClient("claude", "2.1.198 (Claude Code) ");
    world.writeConfig({ adapters: { claude: { plugin: "claude-code", config: { protect: ["secrets"] } } } });
    const newer = await world.hook("claude", "PreToolUse", write(world, "secrets/k.txt"));
    expect(newer.stdout).toBe("");
    expect(logEntries(world).at(-1)).toMatchObject({ client: "claude-code@2.1.198", effective: [] });
    expect(logEntries(world).at(-1)?.fast).toBeUndefined();
  });

  it("answers a turn with nothing to inject itself, and leaves pending messages to the full path, which offers and marks them", async () => {
    const world = makeWorld({
      agentConnectors: {
        inbox: { plugin: "adapter-inbox", config: { path: ".patchbay/inbox.db", agents: ["claude"] } },
      },
      adapters: { claude: { plugin: "claude-code", config: { protect: ["secrets"], inbox: "agentConnectors/inbox" } } },
    });
    world.fakeClient("claude", "2.1.197 (Claude Code)");
    const prompt = (p: string) => ({
      session_id: "s-1",
      cwd: world.project,
      hook_event_name: "UserPromptSubmit",
      prompt: p,
    });
    await world.hook("claude", "SessionStart", {
      session_id: "s-1",
      cwd: world.project,
      hook_event_name: "SessionStart",
      source: "startup",
    });
    expect(logEntries(world).at(-1)?.fast).toBeUndefined(); // builds the cache
    const quiet = await world.hook("claude", "UserPromptSubmit", prompt("hi"));
    expect(quiet).toMatchObject({ code: 0, stdout: "" });
    expect(logEntries(world).at(-1)).toMatchObject({
      kind: "beforeTurn",
      decision: "allow",
      note: "no pending messages",
      fast: true,
    });
    const host = await createHost({
      config: world.configFile,
      env: world.env,
      only: ["agentConnectors/inbox"],
      logLevel: "silent",
    });
    await host.call("agentConnectors/inbox", "deliver", [
      "claude",
      { kind: "augment", content: "MSG-5521 the build is green" },
    ]);
    await host.close();
    const offered = await world.hook("claude", "UserPromptSubmit", prompt("again"));
    expect(JSON.parse(offered.stdout).hookSpecificOutput).toMatchObject({
      hookEventName: "UserPromptSubmit",
      additionalContext: expect.stringContaining("MSG-5521"),
    });
    expect(logEntries(world).at(-2)).toMatchObject({ decision: "inject" });
    expect(logEntries(world).at(-1)).toMatchObject({ delivered: 1 });
    const after = await world.hook("claude", "UserPromptSubmit", prompt("and now?"));
    expect(after.stdout).toBe("");
    expect(logEntries(world).at(-1)).toMatchObject({ note: "no pending messages", fast: true });
    const end = await world.hook("claude", "SessionEnd", {
      session_id: "s-1",
      cwd: world.project,
      hook_event_name: "SessionEnd",
      reason: "other",
    });
    expect(end.stdout).toBe("");
    expect(logEntries(world).at(-1)).toMatchObject({
      kind: "sessionEnd",
      note: "nothing to do for sessionEnd",
      fast: true,
    });
  });

  it("never runs adapter code in the hook's process for an instance isolated in its own process", async () => {
    const world = makeWorld({
      adapters: { claude: { plugin: "claude-code", isolation: "process", config: { protect: ["secrets"] } } },
    });
    world.fakeClient("claude", "2.1.197 (Claude Code)");
    for (let i = 0; i < 2; i++) await world.hook("claude", "PreToolUse", write(world, "secrets/k.txt"));
    expect(logEntries(world)).toHaveLength(2);
    expect(logEntries(world).map((e) => [e.decision, e.fast ?? false])).toEqual([
      ["deny", false],
      ["deny", false],
    ]);
  });

  it("fails open within its bound when the payload never ends", async () => {
    const world = claudeWorld();
    await world.hook("claude", "PreToolUse", write(world, "secrets/k.txt")); // builds the cache
    const child = spawn(
      process.execPath,
      [BIN, "hook", "claude", "PreToolUse", "--config", world.configFile, "--timeout-ms", "400"],
      { cwd: world.project, env: world.env, stdio: ["pipe", "pipe", "pipe"] },
    );
    child.stdin.write('{"session_id":"s-1",'); // and never more
    let stdout = "";
    child.stdout.on("data", (d) => (stdout += d));
    const code = await new Promise((resolve) => child.on("close", resolve));
    child.stdin.destroy();
    expect({ code, stdout }).toEqual({ code: 0, stdout: "" });
    expect(logEntries(world).at(-1)).toMatchObject({
      decision: "fail-open",
      reason: "timeout",
      code: "PB_ERR_HOOK_TIMEOUT",
    });
  });
});

describe("bad input to a real claude-code hook", () => {
  const PROMPT = "rotate the prod key sk-live-424242 tonight";

  it("not JSON, 10 MB, an unknown event: allow, one hooks.log line each, nothing of the prompt", async () => {
    const world = claudeWorld();
    const huge = JSON.stringify({
      session_id: "s-1",
      cwd: world.project,
      hook_event_name: "UserPromptSubmit",
      prompt: PROMPT + " " + "x".repeat(10 * 1024 * 1024),
    });
    const cases: [string, string][] = [
      ["PreToolUse", `{"prompt": "${PROMPT}", not json`],
      ["UserPromptSubmit", huge],
      [
        "BrandNewEvent",
        JSON.stringify({
          session_id: "s-1",
          cwd: world.project,
          hook_event_name: "BrandNewEvent",
          prompt: PROMPT,
          transcript_path: "/home/u/t.jsonl",
        }),
      ],
    ];
    for (const [event, input] of cases) {
      const before = logEntries(world).length;
      const r = await world.hook("claude", event, input);
      expect(r.code, event).toBe(0);
      expect(r.stdout, event).toBe("");
      expect(logEntries(world).length, event).toBe(before + 1);
      expect(world.log() + r.stderr).not.toContain("sk-live-424242");
    }
    const unknown = logEntries(world).at(-1)!;
    expect(unknown).toMatchObject({ decision: "fail-open", reason: "bad-payload", eventArg: "BrandNewEvent" });
    expect(String(unknown.message)).toContain("unrecognised Claude Code hook event BrandNewEvent");
    expect(world.log()).not.toContain("/home/u/t.jsonl");
  });

  it("with no connectors.json: allow, and the one line goes to ~/.patchbay/hooks.log", async () => {
    const empty = tempDir("pb-noconfig-");
    const home = tempDir("pb-home-");
    // A generous bound, as the world gives its own runs: the reason under test is the missing config, not time.
    const r = await runCli(["hook", "claude", "PreToolUse"], {
      cwd: empty,
      env: { HOME: home, PATH: "/usr/bin:/bin", PATCHBAY_HOOK_TIMEOUT_MS: "20000" },
      input: JSON.stringify({ prompt: PROMPT }),
    });
    expect(r).toMatchObject({ code: 0, stdout: "" });
    const lines = readFileSync(path.join(home, ".patchbay", "hooks.log"), "utf8")
      .trim()
      .split("\n");
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0])).toMatchObject({
      decision: "fail-open",
      reason: "config",
      code: "PB_ERR_CONFIG_NOT_FOUND",
    });
    expect(lines[0]).not.toContain("sk-live-424242");
  });
});
