/**
 * What an upstream server may ask of this client. Sampling and elicitation (they spend the
 * operator's model or policy) by default only while one of this instance's tool calls is in
 * flight (the server is working for us), at most `per_minute` in any minute and `total` over the
 * instance's life. roots/list answers a fixed list and servers ask it on their own at start
 * (server-filesystem does), so it is held to `per_minute` only. Past that the request is
 * refused with PB_ERR_CLIENT_REQUEST_REFUSED in its JSON-RPC error: a remote server must not be
 * able to spend the operator's local model (or flood the log) unbounded, with or without a call.
 * Counts go to the host as `client_requests` in a log line's data (cumulative, so a line the log
 * cap drops loses nothing); `patchbay status` shows the latest.
 */
import { McpError, ErrorCode } from "@modelcontextprotocol/sdk/types.js";
import type { PluginContext } from "patchbay/plugin";

export interface ClientRequestLimits {
  per_minute: number;
  total: number;
  outside_calls: boolean;
}

export type ClientRequestKind = "sampling" | "elicitation" | "roots";

const MINUTE_MS = 60_000;
/** Refusals are reported at most this often (with the running counts), not one line each. */
const REFUSAL_REPORT_MS = 1_000;

export class ClientRequestBudget {
  private inFlight = 0;
  private served = 0;
  /** Served roots requests do not spend `total` (only sampling and elicitation do). */
  private rootsServed = 0;
  private refused = 0;
  /** When each request of the last minute was admitted (oldest first). */
  private recent: number[] = [];
  private lastRefusalReport = 0;
  private pendingReport: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly limits: ClientRequestLimits,
    private readonly ctx: PluginContext,
    private readonly target: () => string,
  ) {}

  /** Runs one of this instance's tool calls; the server may ask things of us while it runs. */
  async during<T>(work: () => Promise<T>): Promise<T> {
    this.inFlight++;
    try {
      return await work();
    } finally {
      this.inFlight--;
    }
  }

  /** Admits one request from the server, or throws the McpError the server gets. */
  admit(kind: ClientRequestKind): void {
    const why = this.refusal(kind);
    if (why === null) {
      this.served++;
      if (kind === "roots") this.rootsServed++;
      this.recent.push(Date.now());
      this.ctx.log.info(`served a ${kind} request`, { target: this.target(), client_requests: this.counts() });
      return;
    }
    this.refused++;
    const now = Date.now();
    if (now - this.lastRefusalReport >= REFUSAL_REPORT_MS) {
      this.lastRefusalReport = now;
      this.ctx.log.warn(`refused a ${kind} request: ${why}`, { target: this.target(), client_requests: this.counts() });
    } else if (!this.pendingReport) {
      // The refusals inside this window still reach the counts, once, when it ends.
      this.pendingReport = setTimeout(() => {
        this.pendingReport = null;
        this.lastRefusalReport = Date.now();
        this.ctx.log.warn("server requests refused", { target: this.target(), client_requests: this.counts() });
      }, REFUSAL_REPORT_MS);
    }
    throw new McpError(ErrorCode.InvalidRequest, `PB_ERR_CLIENT_REQUEST_REFUSED: ${kind} refused: ${why}`);
  }

  counts(): { served: number; refused: number } {
    return { served: this.served, refused: this.refused };
  }

  private refusal(kind: ClientRequestKind): string | null {
    const costly = kind !== "roots";
    if (costly && this.inFlight === 0 && !this.limits.outside_calls)
      return "no tool call of this instance is in flight (client_requests.outside_calls is false)";
    if (costly && this.served - this.rootsServed >= this.limits.total)
      return `the instance's total budget of ${this.limits.total} is spent (client_requests.total)`;
    const since = Date.now() - MINUTE_MS;
    while (this.recent.length > 0 && this.recent[0] <= since) this.recent.shift();
    if (this.recent.length >= this.limits.per_minute)
      return `more than ${this.limits.per_minute} in a minute (client_requests.per_minute)`;
    return null;
  }
}
