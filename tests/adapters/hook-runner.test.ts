/**
 * `patchbay hook` as real processes: the whole run is bounded and fails open (exit 0, no stdout)
 * on timeout, crash, bad payload, unknown adapter or missing config, recording why; a payload's
 * prompt and transcript never reach the event, the log or stderr; deny and inject come out in
 * the client's shape, and only when the capability is certified for the installed client.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { currentPlatform } from "../../src/adapter/certification.js";
import { runHook } from "../../src/adapter/hook-runner.js";
import { openAdapter } from "../../src/adapter/session.js";
import { cleanupTempDirs, runCli, tempDir } from "../helpers.js";
import { ADAPTER_FIXTURES, logEntries, makeWorld } from "./_world.js";

afterAll(cleanupTempDirs);

const tool = { kind: "beforeTool", session: "fx-1", cwd: "/tmp", tool: "write", target: "/tmp/x" };
/**
 * The bound is proved without timing the test: the fixture sleeps (or spins, or hangs) 30 s, so
 * a run the bound did not cut ends in an allow or a hang, never a timeout; and the fail-open record
 * names the bound that cut it, so the test sees which setting won. The record is picked by the
 * event word its run was started with (the fixture ignores it; the log keeps it as eventArg), never
 * by its place in the file: on a busy machine a run can be cut before it read the config.
 */
function expectCutBy(world: ReturnType<typeof makeWorld>, boundMs: number, event = "tool") {
  const records = logEntries(world).filter((e) => e.eventArg === event && e.decision === "fail-open");
  expect(records, `the fail-open record of the run started with "${event}"`).toHaveLength(1);
  expect(records[0]).toMatchObject({ reason: "timeout", code: "PB_ERR_HOOK_TIMEOUT" });
  expect(String(records[0].message)).toContain(`within ${boundMs} ms`);
}

function fx(mode: string, extra: Record<string, unknown> = {}) {
  return makeWorld({ adapters: { fx: { plugin: "fx-adapter", config: { mode, ...extra } } } });
}

/** A world for the tests of the bound itself: its runs get no bound but the one the test sets. */
function bounded(mode: string, extra: Record<string, unknown> = {}) {
  return makeWorld({ adapters: { fx: { plugin: "fx-adapter", config: { mode, ...extra } } } }, { ownBound: true });
}

function expectFailOpen(r: { code: number | null; stdout: string; stderr: string }, reason: string) {
  expect(r.code).toBe(0);
  expect(r.stdout).toBe("");
  expect(r.stderr).toContain(`failed open (${reason})`);
}

describe("the hook runner's time bound covers the whole run", () => {
  it("an adapter that sleeps past the bound: allow, the process exits, the log says timeout and names the bound", async () => {
    const world = bounded("sleep");
    const r = await world.hook("fx", "tool", tool, { args: ["--timeout-ms", "1500"] });
    expectFailOpen(r, "timeout");
    expectCutBy(world, 1500);
  });

  it("a run cut before it read the config still records why, in the project's hooks.log", async () => {
    const world = bounded("ok");
    // A payload that never ends: the bound fires while stdin is still being read, before the config is known.
    const never = () => new Promise<string>(() => undefined);
    const r = await runHook({
      adapter: "fx",
      event: "never-ends",
      readPayload: never,
      config: world.configFile,
      cwd: world.project,
      env: world.env,
      timeoutMs: 300,
      startedAt: performance.now(),
    });
    expect(r).toMatchObject({ decision: "fail-open", reason: "timeout", logFile: world.logFile });
    expectCutBy(world, 300, "never-ends");
  });

  it("a busy-looping adapter cannot hold the hook either", async () => {
    const world = bounded("spin");
    const r = await world.hook("fx", "tool", tool, { args: ["--timeout-ms", "1500"] });
    expectFailOpen(r, "timeout");
    expectCutBy(world, 1500);
  });

  it("loading is inside the bound: a create() that never finishes", async () => {
    const world = bounded("hang-create");
    const r = await world.hook("fx", "tool", tool, { args: ["--timeout-ms", "1500"] });
    expectFailOpen(r, "timeout");
    expectCutBy(world, 1500);
  });

  it("the bound comes from --timeout-ms, else PATCHBAY_HOOK_TIMEOUT_MS, else config.hook_timeout_ms (default 5000)", async () => {
    const world = bounded("sleep", { hook_timeout_ms: 20_000 });
    // Each run gets its own event word, so each step reads its own record.
    const flag = await world.hook("fx", "by-flag", tool, { args: ["--timeout-ms", "1200"] });
    expectFailOpen(flag, "timeout");
    expectCutBy(world, 1200, "by-flag");
    const env = await world.hook("fx", "by-env", tool, { env: { PATCHBAY_HOOK_TIMEOUT_MS: "1200" } });
    expectFailOpen(env, "timeout");
    expectCutBy(world, 1200, "by-env");
    // The flag wins over the environment.
    const both = await world.hook("fx", "flag-and-env", tool, {
      args: ["--timeout-ms", "1100"],
      env: { PATCHBAY_HOOK_TIMEOUT_MS: "1300" },
    });
    expectFailOpen(both, "timeout");
    expectCutBy(world, 1100, "flag-and-env");
    // Neither: the instance's hook_timeout_ms, once the config is read. Run in this process, where
    // reading the config takes a moment: a CLI run on a loaded machine can spend the 5 s that bound
    // the run until then on starting node alone, and be cut by those instead.
    const byConfig = bounded("sleep", { hook_timeout_ms: 1500 });
    const r = await runHook({
      adapter: "fx",
      event: "by-config",
      readPayload: async () => JSON.stringify(tool),
      config: byConfig.configFile,
      cwd: byConfig.project,
      env: byConfig.env,
      startedAt: performance.now(),
    });
    expect(r).toMatchObject({ decision: "fail-open", reason: "timeout" });
    expectCutBy(byConfig, 1500, "by-config");
  });

  it("without a flag, a variable or hook_timeout_ms in the config, the bound is 5000 ms", async () => {
    const world = bounded("sleep");
    // Written by hand: the world's writeConfig would add its own hook_timeout_ms.
    writeFileSync(
      world.configFile,
      JSON.stringify({
        plugins: [ADAPTER_FIXTURES],
        adapters: { fx: { plugin: "fx-adapter", config: { mode: "sleep" } } },
      }),
    );
    const r = await world.hook("fx", "tool", tool);
    expectFailOpen(r, "timeout");
    expectCutBy(world, 5000);
  });
});

describe("the hook runner fails open", () => {
  it("when the adapter's worker crashes", async () => {
    const world = fx("exit");
    const r = await world.hook("fx", "tool", tool);
    expectFailOpen(r, "bad-payload");
    expect(logEntries(world).at(-1)).toMatchObject({ decision: "fail-open", code: "PB_ERR_PLUGIN_CRASHED" });
  });

  it("on stdin that is not JSON, or empty", async () => {
    const world = fx("ok");
    expectFailOpen(await world.hook("fx", "tool", "{not json"), "bad-payload");
    expectFailOpen(await world.hook("fx", "tool", ""), "bad-payload");
    expect(logEntries(world).map((e) => e.code)).toEqual([
      "PB_ERR_HOOK_PAYLOAD_INVALID",
      "PB_ERR_HOOK_PAYLOAD_INVALID",
    ]);
  });

  it("on a payload the adapter does not recognise", async () => {
    const world = fx("ok");
    expectFailOpen(await world.hook("fx", "tool", { hello: "world" }), "bad-payload");
  });

  it("for an unknown adapter, and with no connectors.json at all", async () => {
    const world = fx("ok");
    const r = await world.hook("nope", "tool", tool);
    expectFailOpen(r, "unknown-adapter");
    expect(logEntries(world).at(-1)).toMatchObject({ reason: "unknown-adapter", code: "PB_ERR_ADAPTER_UNKNOWN" });
    const empty = tempDir("pb-noconfig-");
    // A generous bound, as the world gives its own runs: the reason under test is the missing config, not time.
    const none = await runCli(["hook", "fx", "tool"], {
      cwd: empty,
      env: { ...world.env, HOME: empty, PATCHBAY_HOOK_TIMEOUT_MS: "20000" },
      input: JSON.stringify(tool),
    });
    expectFailOpen(none, "config");
  });

  it("when a plugin fails to load (a bad manifest)", async () => {
    const world = makeWorld({ adapters: { bad: { plugin: "fx-bad-manifest" } } });
    expectFailOpen(await world.hook("bad", null, tool), "load");
    expect(logEntries(world).at(-1)).toMatchObject({ code: "PB_ERR_ADAPTER_MANIFEST_INVALID" });
  });
});

describe("privacy: a payload's prompt and transcript never survive", () => {
  const PROMPT = "please rotate the prod key sk-live-998877 tonight";
  const TRANSCRIPT = "/home/u/.claude/projects/p/secret-session-transcript.jsonl";

  it("not through normalization, the hook log or stderr, even from an adapter that echoes its payload", async () => {
    const world = fx("echo");
    const r = await world.hook("fx", "tool", { ...tool, prompt: PROMPT, transcript_path: TRANSCRIPT });
    expectFailOpen(r, "bad-payload");
    const everything = world.log() + r.stderr + r.stdout;
    expect(everything).not.toContain("sk-live-998877");
    expect(everything).not.toContain("rotate the prod key");
    expect(everything).not.toContain(TRANSCRIPT);
    expect(everything).not.toContain("secret-session-transcript");
    expect(world.log()).toContain("[REDACTED]");
  });

  it("not through a real adapter's event, nor the log of a run that succeeds", async () => {
    const world = makeWorld({ adapters: { claude: { plugin: "claude-code" } } });
    const payload = {
      session_id: "sess-42",
      transcript_path: TRANSCRIPT,
      cwd: world.project,
      hook_event_name: "UserPromptSubmit",
      prompt: PROMPT,
    };
    const r = await world.hook("claude", "UserPromptSubmit", payload);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("");
    expect(world.log()).not.toContain("sk-live-998877");
    expect(world.log()).not.toContain(TRANSCRIPT);
    expect(logEntries(world).at(-1)).toMatchObject({ kind: "beforeTurn", decision: "allow" });
    const session = await openAdapter({
      config: world.configFile,
      env: world.env,
      instance: "claude",
      logLevel: "silent",
    });
    try {
      const event = await session.call("normalizeHook", [payload, { event: "UserPromptSubmit" }]);
      expect(JSON.stringify(event)).not.toContain("sk-live");
      expect(JSON.stringify(event)).not.toContain("transcript");
      expect(event).toEqual({
        kind: "beforeTurn",
        sessionId: "sess-42",
        cwd: world.project,
        model: null,
        parentSessionId: null,
        agentId: null,
        tool: null,
        targets: [],
      });
    } finally {
      await session.close();
    }
  });
});

describe("deny and inject, only where certified", () => {
  it("renders a guard's deny in the adapter's shape (exit code and stderr included)", async () => {
    const world = fx("deny-all");
    const r = await world.hook("fx", "tool", tool);
    expect(r).toMatchObject({ code: 3, stdout: "", stderr: "DENY: fixture denies /tmp/x\n" });
    expect(logEntries(world).at(-1)).toMatchObject({
      decision: "deny",
      effective: expect.arrayContaining(["guards.beforeWrite"]),
    });
  });

  it("an uncertified guard does nothing but say so: claude-code with a client version it was never certified for", async () => {
    const world = makeWorld({ adapters: { claude: { plugin: "claude-code", config: { protect: ["secrets"] } } } });
    const payload = {
      session_id: "s",
      cwd: world.project,
      hook_event_name: "PreToolUse",
      tool_name: "Write",
      tool_input: { file_path: path.join(world.project, "secrets", "k.txt"), content: "x" },
    };
    const r = await world.hook("claude", "PreToolUse", payload);
    expect(r).toMatchObject({ code: 0, stdout: "" });
    expect(logEntries(world).at(-1)).toMatchObject({
      decision: "allow",
      note: expect.stringContaining("unguarded"),
      effective: [],
    });
  });

  it("with a passing capture for this exact version and platform, claude-code denies in its measured envelope", async () => {
    // claude-code ships real captures of 2.1.197 on linux-x64 (plugins/claude-code/fixtures/captures/).
    if (currentPlatform() !== "linux-x64") return;
    const world = makeWorld({ adapters: { claude: { plugin: "claude-code", config: { protect: ["secrets"] } } } });
    world.fakeClient("claude", "2.1.197 (Claude Code)");
    mkdirSync(path.join(world.project, "secrets"));
    const write = (file: string) => ({
      session_id: "s",
      cwd: world.project,
      hook_event_name: "PreToolUse",
      tool_name: "Edit",
      tool_input: { file_path: file, old_string: "a", new_string: "b" },
    });
    const denied = await world.hook("claude", "PreToolUse", write(path.join(world.project, "secrets", "k.txt")));
    expect(denied.code).toBe(0);
    expect(JSON.parse(denied.stdout)).toEqual({
      hookSpecificOutput: {
        hookEventName: "PreToolUse",
        permissionDecision: "deny",
        permissionDecisionReason: expect.stringContaining(path.join(world.project, "secrets")),
      },
    });
    const allowed = await world.hook(
      "claude",
      "PreToolUse",
      write(path.join(world.project, "secrets-backup", "k.txt")),
    );
    expect(allowed).toMatchObject({ code: 0, stdout: "" });
    // A newer client is not the certified one: the guard degrades to a logged allow.
    world.fakeClient("claude", "2.1.198 (Claude Code)");
    const newer = await world.hook("claude", "PreToolUse", write(path.join(world.project, "secrets", "k.txt")));
    expect(newer).toMatchObject({ code: 0, stdout: "" });
    expect(logEntries(world).at(-1)).toMatchObject({ client: "claude-code@2.1.198", effective: [] });
  });
});
