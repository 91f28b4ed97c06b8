/**
 * defineAdapter's manifest validation: every bad key is refused by name at load, every `true` is
 * backed, a guard without denyOutcome and a context capability without injectOutcome are refused
 * (the reference system let both silently allow/drop), and the manifest is complete and frozen.
 */
import { afterAll, describe, expect, it } from "vitest";
import { defineAdapter, detectFromProbe, normalizedEvent, projectContext, type AdapterMethods } from "patchbay/adapter";
import { createHost } from "../../src/index.js";
import { cleanupTempDirs } from "../helpers.js";
import { makeCtx } from "../plugins/_ctx.js";
import { makeWorld } from "./_world.js";

afterAll(cleanupTempDirs);

const base = (): AdapterMethods => ({
  detect: (probe) => detectFromProbe(probe),
  doctor: () => ({ ok: true, diagnostics: [] }),
  normalizeHook: () => normalizedEvent({ kind: "other", sessionId: "s", cwd: "/" }),
  renderContext: (input, opts) => projectContext(input, opts),
  planInstall: () => ({ artifacts: [] }),
});

async function load(def: Record<string, unknown>, methods: Record<string, unknown> = {}) {
  const adapter = defineAdapter({
    id: "probe",
    displayName: "Probe",
    client: { command: "probe" },
    ...def,
    create: () => ({ ...base(), ...methods }) as AdapterMethods,
  } as never);
  return adapter.create(adapter.config.parse({}), makeCtx().ctx);
}

const refused = (promise: Promise<unknown>, message: RegExp, key?: string) =>
  expect(promise).rejects.toMatchObject({
    code: "PB_ERR_ADAPTER_MANIFEST_INVALID",
    message: expect.stringMatching(message),
    ...(key ? { data: { key } } : {}),
  });

describe("defineAdapter manifest validation", () => {
  it("requires an id, a portable one", async () => {
    await refused(load({ id: undefined }), /must declare an id/, "id");
    for (const id of ["../x", "a b", "con", "x."]) await refused(load({ id }), /invalid adapter id/, "id");
  });

  it("takes a certifyDriver module path inside the plugin folder, and refuses any other", async () => {
    const manifest = (await load({ certifyDriver: "src/certify.ts" })).manifest();
    expect(manifest.certifyDriver).toBe("src/certify.ts");
    for (const certifyDriver of ["../x.ts", "/abs/x.ts", "a//b.ts", 7])
      await refused(load({ certifyDriver }), /certifyDriver must be a relative path/, "certifyDriver");
  });

  it("requires a displayName and client.command, naming them", async () => {
    await refused(load({ displayName: " " }), /displayName/, "displayName");
    await refused(load({ client: {} }), /client\.command/, "client.command");
    await refused(load({ client: { command: "" } }), /client\.command/, "client.command");
    await refused(load({ client: { command: "x", versionArg: ["-v"] } }), /client\.versionArg/, "client.versionArg");
  });

  it("requires every base method, naming it", async () => {
    for (const m of ["detect", "doctor", "normalizeHook", "renderContext", "planInstall"]) {
      await refused(load({}, { [m]: undefined }), new RegExp(`implement ${m}\\(\\)`), m);
    }
  });

  it("refuses an unknown group, an unknown capability and a non-boolean, naming the key", async () => {
    await refused(
      load({ capabilities: { telepathy: { mind: true } } }),
      /unknown capability group: telepathy/,
      "capabilities.telepathy",
    );
    await refused(
      load({ capabilities: { guards: { beforeThink: true } } }),
      /unknown capability: guards\.beforeThink/,
      "capabilities.guards.beforeThink",
    );
    await refused(
      load({ capabilities: { guards: { beforeWrite: "sometimes" } } }),
      /guards\.beforeWrite must be a boolean/,
      "capabilities.guards.beforeWrite",
    );
    await refused(
      load({ capabilities: { delivery: { nextTurn: 1 } } }),
      /must be a boolean/,
      "capabilities.delivery.nextTurn",
    );
  });

  it("refuses a true without its backing method", async () => {
    await refused(
      load(
        { capabilities: { guards: { beforeWrite: true } } },
        { denyOutcome: () => ({ stdout: "x", stderr: "", exitCode: 0 }) },
      ),
      /guards\.beforeWrite requires guardWrite\(\)/,
    );
    await refused(
      load({ capabilities: { lifecycle: { sessionEnd: true } } }),
      /lifecycle\.sessionEnd requires endSession\(\)/,
    );
  });

  it("refuses a guard without denyOutcome and a context capability without injectOutcome (no silent allow, no silent drop)", async () => {
    await refused(
      load({ capabilities: { guards: { beforeWrite: true } } }, { guardWrite: () => ({ decision: "deny" }) }),
      /requires denyOutcome\(\): without it the guard would silently allow/,
      "capabilities.guards.beforeWrite",
    );
    await refused(
      load({ capabilities: { context: { beforeTurnInjection: true } } }),
      /requires injectOutcome\(\): without it the context would be silently dropped/,
      "capabilities.context.beforeTurnInjection",
    );
    await refused(
      load({ capabilities: { delivery: { nextTurn: true } } }),
      /delivery\.nextTurn requires injectOutcome\(\)/,
    );
  });

  it("refuses a method outside the adapter contract (a typo is not silently unreachable)", async () => {
    await refused(
      load({}, { guardwrite: () => ({ decision: "allow" }) }),
      /unknown adapter method guardwrite\(\)/,
      "guardwrite",
    );
  });

  it("loads heartbeat without touching delivery, and fills every omitted capability with false", async () => {
    const a = await load({ capabilities: { lifecycle: { heartbeat: true } } }, { heartbeat: () => ({}) });
    const m = a.manifest();
    expect(m.capabilities.lifecycle.heartbeat).toBe(true);
    expect(m.capabilities.delivery).toEqual({ nextTurn: false, livePush: false, replyRoute: false });
  });

  it("omitted capabilities are all 14 false; the manifest is frozen", async () => {
    const m = (await load({})).manifest();
    expect(Object.values(m.capabilities).flatMap((g) => Object.values(g))).toEqual(new Array(14).fill(false));
    expect(Object.keys(m.capabilities)).toEqual(["lifecycle", "context", "guards", "delivery"]);
    expect(() => {
      (m.capabilities.guards as { beforeWrite: boolean }).beforeWrite = true;
    }).toThrow(TypeError);
    expect(() => {
      (m as { id: string }).id = "other";
    }).toThrow(TypeError);
    expect(m.client).toEqual({ command: "probe", versionArgs: ["--version"], certificationName: "probe" });
  });

  it("adds the standard config keys to the adapter's own schema", () => {
    const a = defineAdapter({ id: "x", displayName: "X", client: { command: "x" }, create: base });
    expect(a.config.parse({})).toEqual({ hook_timeout_ms: 5000, context_budget_bytes: 6000, protect: [] });
    expect(() => a.config.parse({ hook_timeout_ms: "soon" })).toThrow();
  });

  it("a bad manifest fails that instance's load in its worker, blamed by name with the key", async () => {
    const world = makeWorld({ adapters: { broken: { plugin: "fx-bad-manifest" } } });
    const host = await createHost({ config: world.configFile, env: world.env, collect: true, logLevel: "silent" });
    try {
      const report = host.report().instances.find((i) => i.id === "adapters/broken")!;
      expect(report.state).toBe("failed");
      expect(report.error).toMatchObject({
        code: "PB_ERR_ADAPTER_MANIFEST_INVALID",
        message: expect.stringContaining("guards.beforeWrite requires denyOutcome()"),
      });
    } finally {
      await host.close();
    }
    const boot = await world.cli(["boot"]);
    expect(boot.code).toBe(3);
    expect(boot.stderr + boot.stdout).toContain("adapters/broken");
  });
});
