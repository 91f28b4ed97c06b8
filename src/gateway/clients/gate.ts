/**
 * What the gateway checks for a caller before a request reaches an instance, and what it records
 * after: the policy (caller.ts), the quota (a QuotaStore: in memory, or shared by replicas through
 * PostgreSQL), and one audit record per request that reached an instance. The operator with no
 * audit sink pays nothing here: ToolCalls skips the gate for it.
 */
import type { McpError } from "@modelcontextprotocol/sdk/types.js";
import { pbError, type ErrorCode as PbCode } from "../../errors.js";
import { protocolError } from "../rpc-errors.js";
import { forbidden, type Caller } from "./caller.js";
import { ClientUsage } from "./usage.js";

export type Admission =
  | { ok: true; release(): void }
  | { ok: false; code: PbCode; message: string; retryAfterMs: number };

export interface QuotaLimits {
  callsPerMinute: number | null;
  concurrent: number | null;
}

export interface QuotaStore {
  /** Synchronous in memory (the hot path pays no await); a Promise when the count lives in PostgreSQL. */
  admit(clientId: string, limits: QuotaLimits): Admission | Promise<Admission>;
}

export interface AuditEntry {
  time: string;
  client: string;
  session: string | null;
  instance: string;
  kind: "tool" | "resource" | "prompt";
  name: string;
  outcome: string;
  durationMs: number;
  bytesIn: number;
  bytesOut: number;
  idempotencyKey: string | null;
}

/** Who asked, and in which session (null over stdio and stateless HTTP). */
export interface CallScope {
  caller: Caller;
  session: string | null;
}

const NOTHING_TO_RELEASE = (): void => undefined;

export class ClientGate {
  quotas: QuotaStore | null = null;
  /** Told of each request that reached an instance (audit/*: the file, or PostgreSQL). */
  audit: ((entry: AuditEntry) => void) | null = null;
  /** Each client's calls and refusals, for the status page. */
  readonly usage = new ClientUsage();

  /** The refusal of `what` for a caller whose policy does not name it. */
  refuse(caller: Caller, what: string): McpError {
    this.usage.refused(caller.id, "policy", what);
    return protocolError(forbidden(caller, what));
  }

  /**
   * Takes a slot of the caller's quota; the returned function gives it back. Throws the coded
   * refusal, with the time to wait, when the caller is past it.
   */
  admit(caller: Caller): (() => void) | Promise<() => void> {
    const limits = caller.policy?.limits;
    if (!this.quotas || !limits || (limits.callsPerMinute === null && limits.concurrent === null))
      return caller.policy ? this.usage.begin(caller.id) : NOTHING_TO_RELEASE;
    const admission = this.quotas.admit(caller.id, limits);
    return admission instanceof Promise
      ? admission.then((a) => this.settle(caller, a))
      : this.settle(caller, admission);
  }

  private settle(caller: Caller, a: Admission): () => void {
    if (!a.ok) this.usage.refused(caller.id, "quota", "a request past its limits");
    const release = settle(caller, a);
    const end = this.usage.begin(caller.id);
    return () => {
      end();
      release();
    };
  }
}

/** What takes a caller's quota slot: its result gives the slot back. */
export type Admit = () => (() => void) | Promise<() => void>;

/**
 * `run` (a resource read, a prompt get) within a quota slot, given back however it ends. Its
 * failure becomes the client's JSON-RPC error; a quota refusal stays as the gate threw it.
 */
export async function withinQuota<T>(admit: Admit | undefined, run: () => Promise<T>): Promise<T> {
  const release = admit ? await admit() : undefined;
  try {
    return await run();
  } catch (err) {
    throw protocolError(err);
  } finally {
    release?.();
  }
}

function settle(caller: Caller, a: Admission): () => void {
  if (a.ok) return () => a.release();
  throw protocolError(pbError(a.code, a.message, { client: caller.id }), undefined, { retryAfterMs: a.retryAfterMs });
}
