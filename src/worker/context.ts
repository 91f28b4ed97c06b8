/**
 * The PluginContext a plugin's create() receives. `signal`, `remainingMs()`, `progress()` and
 * `currentCall()` read the call in progress (call-scope.ts), so one ctx object serves every
 * concurrent call correctly. Its log lines go through the worker-side rate cap (worker-log.ts).
 */
import { fromWire, pbError } from "../errors.js";
import {
  CHANGEABLE_LISTS,
  MAX_RESOURCE_URI_CHARS,
  type ChangeableList,
  type GrantResultMessage,
} from "../contract/rpc.js";
import type { CallScope, CallTracker, Send, Update } from "./call-scope.js";
import { sendLog, type Level } from "./worker-log.js";
import { traceApi } from "./plugin-spans.js";

export interface ContextOptions {
  send: Send;
  instance: string;
  grants: readonly string[];
  /** Aborts when the instance closes; the signal seen outside any call. */
  instanceSignal: AbortSignal;
  calls: CallTracker;
}

export function createContext(opts: ContextOptions) {
  const { send, instance, grants, calls } = opts;
  const pending = new Map<number, { resolve(v: unknown): void; reject(e: unknown): void }>();
  let nextId = 1;

  const onGrantResult = (msg: GrantResultMessage) => {
    const waiter = pending.get(msg.id);
    if (!waiter) return;
    pending.delete(msg.id);
    if (msg.ok) waiter.resolve(msg.value);
    else waiter.reject(fromWire(msg.error!));
  };

  // (msg, data) is the documented order; pino's (data, msg) is accepted too, since authors reach for it.
  const at = (level: Level) => (a: unknown, b?: unknown) =>
    typeof a !== "string" && typeof b === "string" ? sendLog(send, level, b, a) : sendLog(send, level, a, b);
  const log = Object.freeze({
    trace: at("trace"),
    debug: at("debug"),
    info: at("info"),
    warn: at("warn"),
    error: at("error"),
  });

  const connectors = Object.freeze({
    list: () => [...grants],
    get(target: string) {
      if (!grants.includes(target)) {
        throw pbError(
          "PB_ERR_GRANT_DENIED",
          `${instance} may not call "${target}": it is not granted (granted: ${grants.join(", ") || "none"}).`,
          { instance, target },
        );
      }
      return new Proxy(
        {},
        {
          get: (_t, method) =>
            typeof method !== "string" || method === "then"
              ? undefined
              : (...args: unknown[]) =>
                  new Promise((resolve, reject) => {
                    const id = nextId++;
                    pending.set(id, { resolve, reject });
                    send({ t: "grant-call", id, target, method, args });
                  }),
        },
      );
    },
  });

  const ctx = Object.freeze({
    instance,
    log,
    connectors,
    get signal(): AbortSignal {
      return calls.current()?.signal ?? opts.instanceSignal;
    },
    remainingMs(): number {
      const scope = calls.current();
      return scope ? Math.max(0, scope.deadline - Date.now()) : Infinity;
    },
    /** Reports progress of the call in progress to its caller (a no-op outside a call). */
    progress(update: Update): void {
      calls.current()?.progress(update);
    },
    currentCall(): CallScope | null {
      return calls.current();
    },
    /** The plugin's own spans of the call in progress (plugin-spans.ts); no-ops when it is not traced. */
    trace: traceApi(() => calls.current()?.spans),
    /** A subscribed resource changed (any time, not only in a call); a URI the host would refuse is not sent. */
    resourceUpdated(uri: string): void {
      if (typeof uri !== "string" || uri.length === 0 || uri.length > MAX_RESOURCE_URI_CHARS) return;
      send({ t: "resource-updated", uri });
    },
    /** An offered list (tools, prompts, resources) changed; the host reads it again. */
    listChanged(list: ChangeableList): void {
      if ((CHANGEABLE_LISTS as readonly unknown[]).includes(list)) send({ t: "list-changed", list });
    },
  });
  return { ctx, onGrantResult };
}
