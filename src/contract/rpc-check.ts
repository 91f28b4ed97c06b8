/**
 * The host's check of every message a worker or child sends (issue 8): a plugin controls what
 * arrives on its channel, so nothing reads a field before it is checked here. Hand-written on
 * purpose: `result` is the hot message of every call, and a zod parse per call would cost more
 * than the call (bench/rpc). A message that fails is dropped by the caller and counted against
 * the instance; the returned string says why, for the log line.
 */
import type { WireError } from "../errors.js";
import type { WorkerToHost } from "./rpc.js";

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

/** Checks one raw inbound message; never throws (getters cannot run: structured clone copies data only). */
export function checkWorkerMessage(raw: unknown): CheckedMessage {
  if (!isRecord(raw)) return bad(raw === null ? "a null message" : `a message of type ${Array.isArray(raw) ? "array" : typeof raw}`);
  const m = raw;
  switch (m.t) {
    case "result":
      if (!isId(m.id)) return bad("a result without a valid id");
      if (typeof m.ok !== "boolean") return bad("a result whose ok is not a boolean");
      // A failed result with a malformed error still settles its call (as a contract violation):
      // see RpcClient; it is counted there.
      return { ok: true, msg: m as unknown as WorkerToHost };
    case "log":
      if (typeof m.level !== "string" || !LOG_LEVELS.has(m.level)) return bad(`a log line with level ${JSON.stringify(String(m.level)).slice(0, 40)}`);
      if (typeof m.msg !== "string") return bad("a log line whose msg is not a string");
      if (m.data !== undefined && !isRecord(m.data)) return bad("a log line whose data is not an object");
      return { ok: true, msg: m as unknown as WorkerToHost };
    case "secrets":
      return isStringArray(m.secrets) ? { ok: true, msg: m as unknown as WorkerToHost } : bad("a secrets message whose secrets is not a list of strings");
    case "ready":
      if (!isStringArray(m.secrets)) return bad("a ready message whose secrets is not a list of strings");
      if (!isStringArray(m.methods)) return bad("a ready message whose methods is not a list of strings");
      return { ok: true, msg: m as unknown as WorkerToHost };
    case "init-failed":
      if (!isStringArray(m.secrets)) return bad("an init-failed message whose secrets is not a list of strings");
      if (!isWireError(m.error)) return bad("an init-failed message without a valid error");
      return { ok: true, msg: m as unknown as WorkerToHost };
    case "grant-call":
      if (!isId(m.id) || typeof m.target !== "string" || typeof m.method !== "string" || !Array.isArray(m.args)) return bad("a malformed grant-call");
      return { ok: true, msg: m as unknown as WorkerToHost };
    case "closed":
      return { ok: true, msg: m as unknown as WorkerToHost };
    default:
      return bad(`a message of unknown type ${JSON.stringify(String(m.t)).slice(0, 40)}`);
  }
}

/**
 * Copies every SharedArrayBuffer-backed part of a value into private memory (a thread can post
 * a SAB, and then change it after the host checked it). Mutates containers in place and returns
 * `value` itself unless the value is itself shared; primitives return at once. Iterative, with a
 * visited set: structured clone can deliver cycles and 100,000-deep nesting.
 */
export function unshare(value: unknown): unknown {
  if (!isObject(value)) return value;
  const top = privateCopy(value);
  if (top !== undefined) return top;
  const seen = new Set<object>();
  const stack: object[] = [value];
  while (stack.length > 0) {
    const o = stack.pop()!;
    if (seen.has(o)) continue;
    seen.add(o);
    const visit = (v: unknown, put: (c: unknown) => void): void => {
      if (!isObject(v)) return;
      const c = privateCopy(v);
      if (c !== undefined) put(c);
      else stack.push(v);
    };
    if (Array.isArray(o)) {
      for (let i = 0; i < o.length; i++) visit(o[i], (c) => (o[i] = c));
    } else if (o instanceof Map) {
      for (const [k, v] of o) visit(v, (c) => o.set(k, c));
    } else if (o instanceof Set) {
      for (const v of [...o]) visit(v, (c) => { o.delete(v); o.add(c); });
    } else if (!ArrayBuffer.isView(o) && !(o instanceof ArrayBuffer)) {
      const rec = o as Record<string, unknown>;
      for (const k of Object.keys(rec)) visit(rec[k], (c) => (rec[k] = c));
    }
  }
  return value;
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
