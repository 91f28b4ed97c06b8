/**
 * The serve loop every plugin worker runs, whichever runtime carries it: load the plugin,
 * answer calls, cancel them, relay grant calls, close. The runtime only supplies a channel
 * (entry.ts: the serve task's MessagePort in a thread; process-entry.ts: the framed socket of a
 * process-isolated child), so both runtimes behave the same to the host.
 */
import { pbError, toWire, type WireError } from "../errors.js";
import type { CallMessage, HostToWorker, InstanceTask, WorkerToHost } from "../contract/rpc.js";
import { CallScope, CallTracker } from "./call-scope.js";
import { createContext } from "./context.js";
import { captureConsole } from "./worker-log.js";
import { importDefinition, parseInstanceConfig } from "./load-plugin.js";
import { classifyPluginError, fsDenied } from "./classify.js";
import { pluginStack } from "./plugin-location.js";
import { storeCodeCaches } from "./runtime-twin.js";

/** How long the plugin's close() may take before the worker reports closed anyway. */
const CLOSE_GRACE_MS = 2_000;

/** The worker's end of its channel to the host. */
export interface WorkerChannel {
  /**
   * Called unbound (a closure). Throws synchronously when `msg` cannot be serialized (structured
   * clone rules on both runtimes); the entries pass a ResultOutbox's send, which queues results
   * for one batch per turn and posts everything else at once.
   */
  send(msg: WorkerToHost): void;
  onMessage(fn: (msg: HostToWorker) => void): void;
  /**
   * Sends `last` (after any queued results), then ends the channel: a thread closes its port (tinypool tears the thread
   * down); a child process exits once `last` has been flushed to the host.
   */
  end(last: WorkerToHost): void;
  /**
   * The plugin has the thread to itself (a worker, a child): its console and raw stdout/stderr
   * become its log lines. False on the host's own thread ("isolation": "host"), whose console is
   * the host's. @default true
   */
  ownsConsole?: boolean;
}

/** Resolves when the host asks the instance to close, or at once when loading it failed. */
export async function serve(task: InstanceTask, channel: WorkerChannel): Promise<void> {
  const { send } = channel;
  if (channel.ownsConsole !== false) captureConsole(send);

  const instanceAbort = new AbortController();
  const calls = new CallTracker();
  const { ctx, onGrantResult } = createContext({
    send,
    instance: task.instance,
    grants: task.grants,
    instanceSignal: instanceAbort.signal,
    calls,
  });
  const inflight = new Map<number, CallScope>();
  let impl: Record<string, unknown> | null = null;
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => (finish = resolve));

  // Calls posted in one turn arrive as one batch (rpc/outbox.ts): each is handled as if it came alone.
  channel.onMessage((msg: HostToWorker) => {
    if (msg.t === "batch") {
      for (const m of msg.msgs) receive(m);
      return;
    }
    receive(msg);
  });

  function receive(msg: HostToWorker): void {
    switch (msg.t) {
      case "call":
        void handleCall(msg);
        break;
      case "cancel":
        inflight.get(msg.id)?.abort(new Error(msg.reason));
        break;
      case "grant-result":
        onGrantResult(msg);
        break;
      case "close":
        void close();
        break;
    }
  }

  async function handleCall(msg: CallMessage): Promise<void> {
    const scope = new CallScope(msg.deadline, msg.id, send, msg.tp);
    inflight.set(msg.id, scope);
    try {
      const fn = impl?.[msg.method];
      if (typeof fn !== "function")
        throw pbError("PB_ERR_METHOD_UNDECLARED", `${task.instance}: the plugin does not implement ${msg.method}().`, {
          instance: task.instance,
          method: msg.method,
        });
      const value = await calls.run(scope, () => fn.apply(impl, msg.args));
      if (scope.spans) sendSpans(scope);
      reply(msg.id, true, value);
    } catch (err) {
      if (scope.spans) sendSpans(scope);
      reply(msg.id, false, undefined, pluginErrorToWire(err, task.instance, msg.method, task.pluginDir));
    } finally {
      inflight.delete(msg.id);
    }
  }

  /** A traced call's plugin spans, just before its result (their records are plain data). */
  function sendSpans(scope: CallScope): void {
    const spans = scope.spans?.take();
    if (!spans) return;
    try {
      send({ t: "spans", id: scope.id, spans });
    } catch {
      // Nothing of a record can fail to clone; the spans are not worth the call if one did.
    }
  }

  // The entries' channels queue results for one batch per turn (outbox.ts), so a result that
  // cannot be cloned fails there, and is replaced there; this catch is for a channel that posts at once.
  function reply(id: number, ok: boolean, value?: unknown, error?: WireError): void {
    try {
      send(ok ? { t: "result", id, ok, value } : { t: "result", id, ok, error });
    } catch {
      // The result holds something structured clone cannot carry (a function, a socket...).
      send({
        t: "result",
        id,
        ok: false,
        error: toWire(
          pbError(
            "PB_ERR_CONTRACT_VIOLATION",
            `${task.instance}: the result could not be sent across the boundary (it must be plain data).`,
            { instance: task.instance },
          ),
        ),
      });
    }
  }

  async function close(): Promise<void> {
    instanceAbort.abort(new Error("instance closing"));
    for (const c of inflight.values()) c.abort(new Error("instance closing"));
    const closeFn = impl?.close;
    if (typeof closeFn === "function") {
      await Promise.race([
        Promise.resolve()
          .then(() => closeFn.call(impl))
          .catch(() => undefined),
        new Promise((r) => setTimeout(r, CLOSE_GRACE_MS).unref()),
      ]);
    }
    channel.end({ t: "closed" });
    finish();
  }

  let secrets: string[] = [];
  try {
    const def = await importDefinition(task);
    calls.acrossAwaits = (def as { callContext?: unknown }).callContext !== "sync";
    const parsed = parseInstanceConfig(def, task);
    secrets = parsed.secrets;
    if (secrets.length > 0) send({ t: "secrets", secrets });
    if ("error" in parsed) throw parsed.error;
    const created = await def.create(parsed.config, ctx);
    impl = checkImplementation(created, task);
    send({ t: "ready", secrets, methods: Object.keys(impl).filter((k) => typeof impl![k] === "function") });
    storeCodeCaches();
  } catch (err) {
    channel.end({ t: "init-failed", secrets, error: initErrorToWire(err, task) });
    return;
  }
  await finished;
}

function checkImplementation(created: unknown, task: InstanceTask): Record<string, unknown> {
  if (!created || typeof created !== "object") {
    throw pbError(
      "PB_ERR_PLUGIN_LOAD_FAILED",
      `Plugin "${task.pluginName}": create() must return an object of contract methods.`,
      { instance: task.instance, plugin: task.pluginName },
    );
  }
  const obj = created as Record<string, unknown>;
  const missing = [...task.requiredMethods, ...task.capabilities].filter((m) => typeof obj[m] !== "function");
  if (missing.length > 0) {
    throw pbError(
      "PB_ERR_PLUGIN_LOAD_FAILED",
      `Plugin "${task.pluginName}" (${task.instance}) does not implement ${missing.map((m) => `${m}()`).join(", ")}, which its kind or its declared capabilities require.`,
      {
        instance: task.instance,
        plugin: task.pluginName,
        missing,
      },
    );
  }
  return obj;
}

function initErrorToWire(err: unknown, task: InstanceTask): WireError {
  if (
    err instanceof Error &&
    "code" in err &&
    typeof (err as { code: unknown }).code === "string" &&
    String((err as { code: string }).code).startsWith("PB_ERR_")
  ) {
    return toWire(err);
  }
  const denied = fsDenied(err, `Plugin "${task.pluginName}" (${task.instance}), loading or create()`, {
    instance: task.instance,
    plugin: task.pluginName,
  });
  if (denied) return denied;
  const message = err instanceof Error ? err.message : String(err);
  const stack = pluginStack(err, task.pluginDir);
  return toWire(
    pbError(
      "PB_ERR_PLUGIN_LOAD_FAILED",
      `Plugin "${task.pluginName}" (${task.instance}): create() failed: ${message}`,
      { instance: task.instance, plugin: task.pluginName, ...(stack ? { stack } : {}) },
      // The module loaded and is a definePlugin(): the catalogue's hint about the export would mislead.
      "The plugin's create() threw while starting this instance: fix what the message names (--verbose shows the plugin's own stack); the instance's config is in connectors.json.",
    ),
  );
}

/** A plugin's own error becomes plain data; its stack stays in the worker. */
function pluginErrorToWire(err: unknown, instance: string, method: string, pluginDir: string): WireError {
  const code = (err as { code?: unknown } | null)?.code;
  if (code === "PB_ERR_NOT_IMPLEMENTED") {
    return toWire(
      pbError("PB_ERR_NOT_IMPLEMENTED", `${instance}: ${method}() is not implemented by this plugin.`, {
        instance,
        method,
      }),
    );
  }
  // unsupported() from patchbay/plugin: the plugin's own words say what its substrate lacks.
  if (code === "PB_ERR_UNSUPPORTED") {
    return toWire(
      pbError("PB_ERR_UNSUPPORTED", `${instance}.${method}(): ${err instanceof Error ? err.message : String(err)}`, {
        instance,
        method,
      }),
    );
  }
  if (typeof code === "string" && code.startsWith("PB_ERR_") && err instanceof Error) {
    const wire = toWire(err);
    if (wire.code !== "PB_ERR_INTERNAL") return wire;
  }
  return classifyPluginError(err, instance, method, pluginDir);
}
