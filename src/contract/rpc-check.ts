/**
 * The host's check of every message a worker or child sends: a plugin controls what
 * arrives on its channel, so nothing reads a field before it is checked here. Hand-written on
 * purpose: `result` is the hot message of every call, and a zod parse per call would cost more
 * than the call (bench/rpc). A message that fails is dropped by the caller and counted against
 * the instance; the returned string says why, for the log line.
 */
import type { WireError } from "../errors.js";
import { CHANGEABLE_LISTS, MAX_BATCH, MAX_RESOURCE_URI_CHARS, type WorkerToHost } from "./rpc.js";
import { MAX_SPANS_PER_CALL } from "./span-records.js";

const LOG_LEVELS = new Set(["trace", "debug", "info", "warn", "error", "fatal"]);

export type CheckedMessage = { ok: true; msg: WorkerToHost } | { ok: false; why: string };

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function isId(v: unknown): v is number {
  return typeof v === "number" && Number.isSafeInteger(v) && v > 0;
}

function isStringArray(v: unknown): v is string[] {
  if (!Array.isArray(v)) return false;
  for (const s of v) if (typeof s !== "string") return false;
  return true;
}

/** A WireError a host may hand to fromWire(): code, message and (optional) hint strings, data a plain object. */
export function isWireError(v: unknown): v is WireError {
  if (!isRecord(v)) return false;
  if (typeof v.code !== "string" || typeof v.message !== "string") return false;
  if (v.hint !== undefined && typeof v.hint !== "string") return false;
  return v.data === undefined || isRecord(v.data);
}

const bad = (why: string): CheckedMessage => ({ ok: false, why });

/** For the log line only; String() would throw on an object without a prototype. */
function describeLevel(level: unknown): string {
  return typeof level === "string"
    ? JSON.stringify(level).slice(0, 40)
    : `of type ${level === null ? "null" : typeof level}`;
}

/** Checks one raw inbound message; never throws (getters cannot run: structured clone copies data only). */
export function checkWorkerMessage(raw: unknown): CheckedMessage {
  if (!isRecord(raw))
    return bad(raw === null ? "a null message" : `a message of type ${Array.isArray(raw) ? "array" : typeof raw}`);
  const m = raw;
  switch (m.t) {
    case "result":
      if (!isId(m.id)) return bad("a result without a valid id");
      if (typeof m.ok !== "boolean") return bad("a result whose ok is not a boolean");
      // A failed result with a malformed error still settles its call (as a contract violation):
      // see RpcClient; it is counted there.
      return { ok: true, msg: m as unknown as WorkerToHost };
    case "log":
      if (typeof m.level !== "string" || !LOG_LEVELS.has(m.level))
        return bad(`a log line with level ${describeLevel(m.level)}`);
      if (typeof m.msg !== "string") return bad("a log line whose msg is not a string");
      if (m.data !== undefined && !isRecord(m.data)) return bad("a log line whose data is not an object");
      return { ok: true, msg: m as unknown as WorkerToHost };
    case "secrets":
      return isStringArray(m.secrets)
        ? { ok: true, msg: m as unknown as WorkerToHost }
        : bad("a secrets message whose secrets is not a list of strings");
    case "ready":
      if (!isStringArray(m.secrets)) return bad("a ready message whose secrets is not a list of strings");
      if (!isStringArray(m.methods)) return bad("a ready message whose methods is not a list of strings");
      return { ok: true, msg: m as unknown as WorkerToHost };
    case "init-failed":
      if (!isStringArray(m.secrets)) return bad("an init-failed message whose secrets is not a list of strings");
      if (!isWireError(m.error)) return bad("an init-failed message without a valid error");
      return { ok: true, msg: m as unknown as WorkerToHost };
    case "grant-call":
      if (!isId(m.id) || typeof m.target !== "string" || typeof m.method !== "string" || !Array.isArray(m.args))
        return bad("a malformed grant-call");
      return { ok: true, msg: m as unknown as WorkerToHost };
    case "closed":
      return { ok: true, msg: m as unknown as WorkerToHost };
    // Progress of a call in flight; the numbers' finiteness and the text's length are checked by RpcClient.
    case "progress":
      if (!isId(m.id) || typeof m.progress !== "number") return bad("a malformed progress message");
      if (m.total !== undefined && typeof m.total !== "number")
        return bad("a progress message whose total is not a number");
      if (m.message !== undefined && typeof m.message !== "string")
        return bad("a progress message whose message is not a string");
      return { ok: true, msg: m as unknown as WorkerToHost };
    // A subscribed resource changed; the rate is capped by RpcClient.
    case "resource-updated":
      if (typeof m.uri !== "string" || m.uri.length === 0)
        return bad("a resource-updated message without a uri string");
      if (m.uri.length > MAX_RESOURCE_URI_CHARS)
        return bad(
          `a resource-updated message whose uri has ${m.uri.length} characters (at most ${MAX_RESOURCE_URI_CHARS})`,
        );
      return { ok: true, msg: m as unknown as WorkerToHost };
    // An offered list changed; how often it is read again is the reader's choice.
    case "list-changed":
      if (!(CHANGEABLE_LISTS as readonly unknown[]).includes(m.list))
        return bad(`a list-changed message whose list is not one of ${CHANGEABLE_LISTS.join(", ")}`);
      return { ok: true, msg: m as unknown as WorkerToHost };
    // A batch is unwrapped by the receiver (checkBatch) before its entries come here: one inside another is refused.
    // A traced call's span records; each record is checked by RpcClient (span-records.ts).
    case "spans":
      if (!isId(m.id) || !Array.isArray(m.spans)) return bad("a malformed spans message");
      if (m.spans.length > MAX_SPANS_PER_CALL) return bad(`a spans message of more than ${MAX_SPANS_PER_CALL} spans`);
      return { ok: true, msg: m as unknown as WorkerToHost };
    case "batch":
      return bad("a batch inside a batch");
    default:
      return bad(`a message of unknown type ${JSON.stringify(String(m.t)).slice(0, 40)}`);
  }
}

/** A raw message that claims to be a batch; checkBatch says whether it is one. */
export function isBatch(raw: unknown): raw is { t: "batch"; msgs: unknown } {
  return isRecord(raw) && raw.t === "batch";
}

export type CheckedBatch = { ok: true; msgs: unknown[] } | { ok: false; why: string };

/**
 * The envelope of a worker's batch: a list of at most MAX_BATCH entries, or malformed as a
 * whole. Its entries are still raw: each goes through checkBatchEntry, one by one.
 */
export function checkBatch(raw: { t: "batch"; msgs: unknown }): CheckedBatch {
  const { msgs } = raw;
  if (!Array.isArray(msgs))
    return { ok: false, why: `a batch whose msgs is ${msgs === null ? "null" : `of type ${typeof msgs}`}, not a list` };
  if (msgs.length > MAX_BATCH) return { ok: false, why: `a batch of ${msgs.length} entries (at most ${MAX_BATCH})` };
  if (msgs.length === 0) return { ok: false, why: "an empty batch" };
  return { ok: true, msgs };
}

/** One entry of a batch: checked as a lone message, and only results may be batched. */
export function checkBatchEntry(raw: unknown): CheckedMessage {
  const checked = checkWorkerMessage(raw);
  if (!checked.ok) return { ok: false, why: `a batch entry: ${checked.why}` };
  if (checked.msg.t !== "result")
    return { ok: false, why: `a batch entry of type "${checked.msg.t}" (only results may be batched)` };
  return checked;
}

export type ResultCheck =
  | { ok: true; value: unknown }
  | { ok: false; code: "PB_ERR_CONTRACT_CYCLIC" | "PB_ERR_CONTRACT_BIGINT"; why: string };

interface Frame {
  o: object;
  keys: unknown[];
  i: number;
  /** How to read and replace the child at a key. */
  get(k: unknown): unknown;
  set(k: unknown, v: unknown): void;
}

/**
 * The host's check of a successful result's value before anyone reads it: a BigInt or
 * a cycle (both cross structured clone, neither is JSON, and each surfaced as PB_ERR_INTERNAL
 * wherever the result was printed) is refused with its own code, naming where it sits; with
 * `shared` (a thread's port), every SharedArrayBuffer-backed part is first copied into private
 * memory, so the plugin cannot change it after the check. One iterative pass (structured clone
 * can deliver 100,000-deep nesting); a primitive returns at once, which is the common case.
 */
export function checkResultValue(value: unknown, shared: boolean): ResultCheck {
  if (typeof value === "bigint") return { ok: false, code: "PB_ERR_CONTRACT_BIGINT", why: "is a BigInt" };
  if (!isObject(value)) return { ok: true, value };
  if (shared) {
    const top = privateCopy(value);
    if (top !== undefined) return { ok: true, value: top };
  }
  // The common result: one plain object or array of primitives. Nothing in it can be a BigInt,
  // a cycle or shared memory once each value is a primitive other than a BigInt: answered without the walk.
  if (flatOfPrimitives(value)) return { ok: true, value };
  const onPath = new Set<object>();
  const done = new Set<object>();
  const stack: Frame[] = [];
  const enter = (o: object): void => {
    onPath.add(o);
    stack.push(frameOf(o));
  };
  const where = (k: unknown): string =>
    [...stack.map((f) => f.keys[f.i - 1]).slice(0, -1), k].map((x) => `/${String(x)}`).join("");
  enter(value);
  while (stack.length > 0) {
    const f = stack[stack.length - 1];
    if (f.i >= f.keys.length) {
      stack.pop();
      onPath.delete(f.o);
      done.add(f.o);
      continue;
    }
    const k = f.keys[f.i++];
    const v = f.get(k);
    if (typeof v === "bigint")
      return { ok: false, code: "PB_ERR_CONTRACT_BIGINT", why: `holds a BigInt at ${where(k)}` };
    if (!isObject(v)) continue;
    if (shared) {
      const c = privateCopy(v);
      if (c !== undefined) {
        f.set(k, c);
        continue;
      }
    }
    if (onPath.has(v))
      return { ok: false, code: "PB_ERR_CONTRACT_CYCLIC", why: `refers back to itself at ${where(k)}` };
    // A value reached twice without a cycle (a shared sub-object) is fine, and walked once.
    if (!done.has(v)) enter(v);
  }
  return { ok: true, value };
}

function frameOf(o: object): Frame {
  if (Array.isArray(o))
    return { o, keys: o.map((_, i) => i), i: 0, get: (k) => o[k as number], set: (k, v) => (o[k as number] = v) };
  if (o instanceof Map) return { o, keys: [...o.keys()], i: 0, get: (k) => o.get(k), set: (k, v) => o.set(k, v) };
  if (o instanceof Set) {
    const items = [...o];
    return {
      o,
      keys: items.map((_, i) => i),
      i: 0,
      get: (k) => items[k as number],
      set: (k, v) => {
        o.delete(items[k as number]);
        o.add(v);
        items[k as number] = v;
      },
    };
  }
  if (ArrayBuffer.isView(o) || o instanceof ArrayBuffer || o instanceof Date || o instanceof RegExp)
    return { o, keys: [], i: 0, get: () => undefined, set: () => undefined };
  const rec = o as Record<string, unknown>;
  return { o, keys: Object.keys(rec), i: 0, get: (k) => rec[k as string], set: (k, v) => (rec[k as string] = v) };
}

/**
 * A plain object (Object.prototype) or an array whose values, by the same keys the walk reads
 * (Object.keys, array indices), are all primitives and none a BigInt. Anything else (Map, Set,
 * a view, a nested object) takes the walk.
 */
function flatOfPrimitives(o: object): boolean {
  if (Array.isArray(o)) {
    for (let i = 0; i < o.length; i++) if (!isLeaf(o[i])) return false;
    return true;
  }
  if (Object.getPrototypeOf(o) !== Object.prototype) return false;
  const rec = o as Record<string, unknown>;
  const keys = Object.keys(rec);
  for (let i = 0; i < keys.length; i++) if (!isLeaf(rec[keys[i]])) return false;
  return true;
}

function isLeaf(v: unknown): boolean {
  return v === null || (typeof v !== "object" && typeof v !== "bigint");
}

function isObject(v: unknown): v is object {
  return typeof v === "object" && v !== null;
}

/** A private copy of a shared buffer or a view on one; undefined when `v` is not shared memory. */
function privateCopy(v: object): unknown {
  if (v instanceof SharedArrayBuffer) return copySab(v);
  if (!ArrayBuffer.isView(v) || !(v.buffer instanceof SharedArrayBuffer)) return undefined;
  const bytes = v.byteLength;
  const copy = new ArrayBuffer(bytes);
  new Uint8Array(copy).set(new Uint8Array(v.buffer, v.byteOffset, bytes));
  if (v instanceof DataView) return new DataView(copy);
  const Ctor = v.constructor as new (b: ArrayBuffer) => ArrayBufferView;
  return new Ctor(copy);
}

function copySab(sab: SharedArrayBuffer): ArrayBuffer {
  const copy = new ArrayBuffer(sab.byteLength);
  new Uint8Array(copy).set(new Uint8Array(sab));
  return copy;
}
