// The per-request signal mcp-remote hands the SDK: linked to the caller's signal and to the
// session, and garbage once the request settles (the SDK never removes its abort listener, so a
// signal kept alive by a long-lived source kept every request ever sent).
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterAll, expect, it } from "vitest";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import type { PluginContext } from "patchbay/plugin";
import { Connection } from "../src/connection.js";
import { config } from "../src/config.js";
import { RequestSignal, RequestSignals } from "../src/request-signal.js";
import { STDIO_SERVER } from "./demo-server.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

const noop = () => {};
let callSignal = new AbortController().signal;
const ctx: PluginContext = {
  instance: "mcpConnectors/signals",
  log: { trace: noop, debug: noop, info: noop, warn: noop, error: noop },
  get signal() {
    return callSignal;
  },
  remainingMs: () => 5_000,
  connectors: {
    get: () => {
      throw new Error("none");
    },
    list: () => [],
  },
};
const connection = new Connection(config.parse({ command: "node", args: [STDIO_SERVER] }), ctx);
afterAll(() => connection.close());

it("aborts a request's signal with the caller's reason or the session's, and unlinks it once settled", () => {
  const requests = new RequestSignals();
  const caller = new AbortController();
  const first = requests.open(caller.signal);
  const second = requests.open(caller.signal);
  expect(requests.size).toBe(2);
  caller.abort(new Error("deadline"));
  expect((first.signal.reason as Error).message).toBe("deadline");
  second.done();
  first.done();
  expect(requests.size).toBe(0);

  const third = requests.open(new AbortController().signal);
  requests.abortAll(new Error("session broke"));
  expect((third.signal.reason as Error).message).toBe("session broke");

  const late = requests.open(caller.signal);
  expect(late.signal.aborted).toBe(true);
});

it("under a handle with onAbort, links through it and never reads the handle's signal", () => {
  const requests = new RequestSignals();
  let listeners: ((reason: Error) => void)[] = [];
  let aborted = false;
  const handle = {
    get signal(): AbortSignal {
      throw new Error("signal read");
    },
    get aborted() {
      return aborted;
    },
    onAbort(listener: (reason: Error) => void) {
      listeners.push(listener);
      return () => (listeners = listeners.filter((l) => l !== listener));
    },
  };
  const first = requests.openFor(handle);
  const second = requests.openFor(handle);
  second.done();
  expect(listeners).toHaveLength(1);
  aborted = true;
  for (const l of listeners) l(new Error("deadline"));
  expect((first.signal.reason as Error).message).toBe("deadline");
  expect(second.signal.aborted).toBe(false);
  first.done();
  expect(listeners).toHaveLength(0);
  expect(requests.size).toBe(0);
});

it("answers as an AbortSignal does to what the SDK and mcp-remote use of it", async () => {
  const real = new AbortController();
  const light = new RequestSignal();
  const heard = { real: [] as string[], light: [] as string[] };
  for (const [name, signal] of [
    ["real", real.signal],
    ["light", light.asAbortSignal],
  ] as const) {
    const twice = () => heard[name].push("twice");
    const removed = () => heard[name].push("removed");
    signal.addEventListener("abort", twice);
    signal.addEventListener("abort", twice);
    signal.addEventListener("abort", removed, { once: true });
    signal.removeEventListener("abort", removed);
    signal.addEventListener("abort", () => {
      throw new Error(`${name} listener threw`);
    });
    signal.addEventListener("abort", function (this: unknown) {
      heard[name].push(this === signal ? "this is the signal" : "another this");
    });
    expect(() => signal.throwIfAborted()).not.toThrow();
  }
  const thrown: string[] = [];
  const onUncaught = (err: Error) => thrown.push(err.message);
  process.prependListener("uncaughtException", onUncaught);
  try {
    real.abort(new Error("stop"));
    light.abort(new Error("stop"));
    light.abort(new Error("again"));
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    process.removeListener("uncaughtException", onUncaught);
  }
  expect(heard.light).toEqual(heard.real);
  expect(thrown.sort()).toEqual(["light listener threw", "real listener threw"]);
  for (const signal of [real.signal, light.asAbortSignal]) {
    expect(signal.aborted).toBe(true);
    expect((signal.reason as Error).message).toBe("stop");
    expect(() => signal.throwIfAborted()).toThrow("stop");
    const late = () => heard.light.push("late");
    signal.addEventListener("abort", late);
  }
  expect(heard.light).toEqual(heard.real);
});

it("keeps no request's signal alive after the request settles, so calls do not accumulate", async () => {
  const refs: WeakRef<AbortSignal>[] = [];
  for (let i = 0; i < 20; i++) {
    callSignal = new AbortController().signal;
    const caller = { deadline: Date.now() + 5_000, signal: callSignal };
    const result = await connection.run("tools/call echo", caller, false, (client, opts) => {
      refs.push(new WeakRef(opts.signal));
      return client.request(
        { method: "tools/call", params: { name: "echo", arguments: { text: `hi ${i}` } } },
        CallToolResultSchema,
        opts,
      );
    });
    expect(result.content[0]).toEqual({ type: "text", text: `hi ${i}` });
  }
  callSignal = new AbortController().signal;
  for (let i = 0; i < 5 && refs.some((r) => r.deref()); i++) {
    await new Promise((resolve) => setImmediate(resolve));
    gc();
  }
  expect(refs.filter((r) => r.deref()).length).toBe(0);
});
