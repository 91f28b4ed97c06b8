/**
 * Requests this plugin writes to a stdio server itself, beside the SDK Client on the same
 * transport, and whose answers the transport hands here before the Client sees them.
 *
 * Why: a plain tools/call through Client.request() costs, on the gateway's own thread with
 * "isolation": "host", a timer per request, the Client's handler maps and its generic message
 * routing, on every call. Here a request is one map entry; the SDK's per-request timeout becomes
 * one shared timer armed for the earliest expiry, so back-to-back calls arm it about once per
 * timeout instead of once each.
 *
 * What the Client's request() does is kept, step for step (shared/protocol.js): the request is
 * refused at once if its signal already aborted (with the signal's reason); an abort or the
 * timeout sends notifications/cancelled with the request's id and String(reason), and rejects
 * with the reason as an McpError (RequestTimeout unless it already is one); an error response
 * rejects with McpError.fromError(code, message, data); a result is checked with the caller's
 * schema and rejected with its error when it fails; a progressToken (the request's id) is sent,
 * and progress notifications for it are checked with the SDK's ProgressNotificationSchema and
 * passed on without the token; a closed transport rejects what is in flight with "Connection
 * closed". Failures to send a cancellation, and progress that fails the schema, go to the
 * transport's onerror, as the Client reports them.
 *
 * Ids are strings ("pb:1", ...): the Client's are numbers, so neither can take the other's
 * answer. A response or progress for an id that is not in flight here (a duplicate, a late one,
 * one never sent) is left to the Client, which reports it as unknown, as it did before.
 */
import {
  ErrorCode,
  McpError,
  ProgressNotificationSchema,
  type JSONRPCMessage,
  type Progress,
} from "@modelcontextprotocol/sdk/types.js";

const ID_PREFIX = "pb:";

type Rec = Record<string, unknown>;

interface Schema<T> {
  safeParse(value: unknown): { success: true; data: T } | { success: false; error: unknown };
}

export interface DirectOpts {
  /** As the SDK's request option: ms until the request times out on its own (after the caller's deadline). */
  timeout: number;
  signal: AbortSignal;
}

interface Pending {
  /** When it times out (ms since the epoch), and the timeout it was given (the SDK's error quotes it). */
  expiry: number;
  timeout: number;
  signal: AbortSignal;
  onAbort: () => void;
  reject: (err: unknown) => void;
  onprogress: (p: Progress) => void;
  settle: (message: Rec | Error) => void;
}

/** The part of the transport the requests use. */
export interface DirectWire {
  /** Writes one message (the transport's send: it rejects "Not connected" once closed). */
  send(message: JSONRPCMessage): Promise<void>;
  /** False once the transport closed: a cancellation is then not sent (the Client no longer has a transport). */
  readonly open: boolean;
  /** Where the Client's errors go (its onerror, through the transport). */
  error(err: Error): void;
}

export class DirectRequests {
  private readonly pending = new Map<string, Pending>();
  private next = 0;
  private timer: NodeJS.Timeout | null = null;
  private timerAt = Number.POSITIVE_INFINITY;

  constructor(private readonly wire: DirectWire) {}

  /** Requests in flight (for tests: none may stay behind). */
  get size(): number {
    return this.pending.size;
  }

  request<T>(
    method: string,
    params: Rec,
    schema: Schema<T>,
    opts: DirectOpts,
    onprogress: (p: Progress) => void,
  ): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const { signal } = opts;
      if (signal.aborted) return reject(signal.reason);
      const id = ID_PREFIX + this.next++;
      const message = { method, params: withToken(params, id), jsonrpc: "2.0", id } as JSONRPCMessage;
      const p: Pending = {
        expiry: Date.now() + opts.timeout,
        timeout: opts.timeout,
        signal,
        onAbort: () => this.cancel(id, signal.reason),
        reject,
        onprogress,
        settle: (answer) => {
          if (answer instanceof Error) return reject(answer);
          if (Object.hasOwn(answer, "error")) {
            const e = answer.error as { code: number; message: string; data?: unknown };
            return reject(McpError.fromError(e.code, e.message, e.data));
          }
          try {
            const parsed = schema.safeParse(answer.result);
            if (parsed.success) resolve(parsed.data);
            else reject(parsed.error);
          } catch (err) {
            reject(err);
          }
        },
      };
      this.pending.set(id, p);
      signal.addEventListener("abort", p.onAbort);
      this.arm(p.expiry);
      this.wire.send(message).catch((err: unknown) => {
        if (this.forget(id)) reject(err);
      });
    });
  }

  /**
   * Takes a response or progress notification for a request in flight here; false for every
   * other message, which goes to the Client as before.
   */
  take(message: JSONRPCMessage): boolean {
    if (this.pending.size === 0) return false;
    const m = message as Rec;
    const id = m.id;
    if (typeof id === "string") {
      if (m.method !== undefined || !(Object.hasOwn(m, "result") || Object.hasOwn(m, "error"))) return false;
      const p = this.pending.get(id);
      if (!p || !this.forget(id)) return false;
      p.settle(m);
      return true;
    }
    if (m.method === "notifications/progress" && id === undefined) return this.progress(m);
    return false;
  }

  /** The transport closed: what is in flight fails as the Client fails its requests. */
  closed(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.timerAt = Number.POSITIVE_INFINITY;
    const error = McpError.fromError(ErrorCode.ConnectionClosed, "Connection closed");
    const all = [...this.pending.values()];
    for (const id of [...this.pending.keys()]) this.forget(id);
    for (const p of all) p.settle(error);
  }

  private progress(m: Rec): boolean {
    const token = (m.params as Rec | undefined)?.progressToken;
    if (typeof token !== "string") return false;
    const p = this.pending.get(token);
    if (!p) return false;
    const parsed = ProgressNotificationSchema.safeParse(m);
    if (!parsed.success) {
      // As the Client's notification handler reports a notification its schema refuses.
      this.wire.error(new Error(`Uncaught error in notification handler: ${parsed.error}`));
      return true;
    }
    const { progressToken: _, ...rest } = parsed.data.params;
    p.onprogress(rest as Progress);
    return true;
  }

  private cancel(id: string, reason: unknown): void {
    const p = this.pending.get(id);
    if (!p || !this.forget(id)) return;
    if (this.wire.open) {
      this.wire
        .send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason: String(reason) } })
        .catch((err: unknown) => this.wire.error(new Error(`Failed to send cancellation: ${err}`)));
    }
    p.reject(reason instanceof McpError ? reason : new McpError(ErrorCode.RequestTimeout, String(reason)));
  }

  /** Removes a request in flight; false if it was no longer (already answered, cancelled or failed). */
  private forget(id: string): boolean {
    const p = this.pending.get(id);
    if (!p) return false;
    this.pending.delete(id);
    p.signal.removeEventListener("abort", p.onAbort);
    // The timer stays armed when nothing is left in flight: the next request would arm it again.
    return true;
  }

  /**
   * One timer for every request, armed for the earliest expiry and moved only when an earlier one
   * comes; unref'd, since it may outlive the requests it was armed for (the child's pipes keep the
   * process alive while a request is in flight).
   */
  private arm(at: number): void {
    if (at >= this.timerAt) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => this.expire(), Math.max(0, at - Date.now())).unref();
  }

  private expire(): void {
    this.timer = null;
    this.timerAt = Number.POSITIVE_INFINITY;
    const now = Date.now();
    let next = Number.POSITIVE_INFINITY;
    for (const [id, p] of [...this.pending]) {
      if (p.expiry <= now)
        this.cancel(id, McpError.fromError(ErrorCode.RequestTimeout, "Request timed out", { timeout: p.timeout }));
      else next = Math.min(next, p.expiry);
    }
    if (next !== Number.POSITIVE_INFINITY) this.arm(next);
  }
}

/**
 * `{ ...params, _meta: { ...params._meta, progressToken } }`, as the SDK Client sends it, built by
 * hand for a tools/call's own keys: the spreads cost about 2 µs per request on Node 20 (measured),
 * more than the rest of writing it.
 */
function withToken(params: Rec, progressToken: string): Rec {
  const meta = params._meta as Rec | undefined;
  for (const k in params) {
    if (k !== "name" && k !== "arguments" && k !== "_meta") return { ...params, _meta: { ...meta, progressToken } };
  }
  return {
    name: params.name,
    arguments: params.arguments,
    _meta: meta === undefined ? { progressToken } : { ...meta, progressToken },
  };
}
