// One file on purpose: the invariants below hold across opening, requesting, losing and closing one session.
/**
 * One lazily opened MCP client session, replaced when it is lost.
 *
 * Invariants:
 * - Every request carries an explicit timeout derived from the caller's deadline, so the SDK's
 *   60 s default never applies, and the caller's AbortSignal. The SDK's timeout is set a little
 *   after the host's deadline: the host times the call out first (PB_ERR_CALL_TIMEOUT) and
 *   cancels it, which aborts the signal, which makes the SDK send notifications/cancelled.
 * - A Streamable HTTP stream that breaks under a request in flight (the server died) fails that
 *   request at once: the SDK alone would wait for the deadline.
 * - close() leaves no stdio server behind: stdin closed, then SIGTERM, then SIGKILL, all well
 *   within the worker's own close grace.
 * - A lost connection (child exited, HTTP session unknown after a server restart, connection
 *   refused) is dropped and reopened once. A request is retried on the new connection only when
 *   it cannot have reached the server, or when it is idempotent (list, ping): a tool call that
 *   may have run is never silently run twice.
 * - A failed connect is never cached; the next use tries again.
 * - One message from the server is at most 10 MiB, over stdio and HTTP alike (line-buffer.ts,
 *   bounded-fetch.ts): past it a JSON answer fails its own request, a stream drops its session.
 *
 * Longer than 300 lines on purpose: these invariants hold across opening, requesting, losing and
 * closing one session, and each is kept by code in more than one of those steps; they stay in one
 * file so that a change to one step is read against the rest.
 */
import { createInterface } from "node:readline";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { PluginContext, ToolDescriptor } from "patchbay/plugin";
import { unavailable } from "patchbay/plugin";
import { TraceHeaders } from "./trace.js";
import { LogBudget } from "./budget.js";
import { type ChildServer, startServer } from "./child-server.js";
import { ChildTransport } from "./child-transport.js";
import { ClientRequestBudget } from "./client-budget.js";
import { clientCapabilities, installHandlers } from "./client-features.js";
import type { McpRemoteConfig } from "./config.js";
import { AFTER_DEADLINE_MS, bounded, deadlineError, requestTimeout } from "./deadlines.js";
import { ConnectionLostError, classifyLoss } from "./loss.js";
import type { HttpLink } from "./http-link.js";
import type { AuthCodeProvider } from "./oauth.js";
import { hostChecksOutput } from "./output-validation.js";
import { type CallAbort, callAborted, RequestSignals } from "./request-signal.js";

export { requestTimeout };

const MAX_STDERR_LINE = 2_000;
const STDERR_BUDGET_PER_SECOND = 100;
/** Transport errors that mean a stream under a request broke (the server or the network went away). */
const STREAM_BROKEN = /SSE stream disconnected|Failed to reconnect|Maximum reconnection attempts/;
/** The SDK's stdio reader drops the connection when one message passes 10 MiB; say so instead of "closed". */
const TOO_BIG = /ReadBuffer exceeded maximum size/;

export type ConnectionConfig = McpRemoteConfig;

export { ConnectionLostError };

export interface Session {
  client: Client;
  transport: Transport;
  lost: boolean;
  /** Aborted when the session's connection breaks (with `requests`: fails the requests in flight at once). */
  broken: AbortController;
  /** The signals of the requests in flight on this session. */
  requests: RequestSignals;
  /** tools/list, cached until the server says notifications/tools/list_changed or the session ends. */
  tools: ToolDescriptor[] | null;
  /** Tools that run only as tasks (execution.taskSupport "required"), from the last tools/list. */
  taskTools: Set<string>;
  /** Why the session ended, when the transport said (quoted in the error of the requests it took down). */
  why: string | null;
}

/**
 * The call a request is made for: its deadline (ms since the epoch, or Infinity) and its abort,
 * read from the call's handle (ctx.currentCall()), since the connection outlives every call.
 */
export interface Caller extends CallAbort {
  readonly deadline: number;
}

/** What an operation on a session is given: the per-request options for the SDK. */
export interface RequestOpts {
  timeout: number;
  signal: AbortSignal;
}

/** The session's connection is gone: what is in flight on it fails now. */
function breakSession(session: Session, reason: ConnectionLostError): void {
  session.broken.abort(reason);
  session.requests.abortAll(reason);
}

export class Connection {
  private session: Session | null = null;
  /** A session was open before: the next one may be a restarted server with other lists. */
  private connectedBefore = false;
  /** The last HTTP transport made: after a 401 at connect it finishes the authorization. */
  private lastHttp: StreamableHTTPClientTransport | null = null;
  /** Traced requests in flight, whose POSTs get a traceparent header (trace.ts). */
  readonly traceHeaders = new TraceHeaders();
  private opening: Promise<Session> | null = null;
  private closed = false;
  /** One per connection: it holds the OAuth state (tokens, registration) across sessions. */
  private readonly auth: OAuthClientProvider | undefined;
  /** The auth when it is the authorization-code flow, which waits for the operator's redirect. */
  private readonly codeFlow: AuthCodeProvider | null;
  /** What the server may ask of us (sampling, elicitation, roots), across sessions. */
  readonly asks: ClientRequestBudget;
  /** Runs for every session once it is connected (resource subscriptions renew themselves here). */
  onConnected: ((client: Client) => void) | null = null;

  /**
   * @param early a stdio server already started for this connection (at create(), before the SDK
   * loaded): the first session adopts it; later sessions start their own.
   * @param http the Streamable HTTP side (http-link.ts), loaded only for a `url` server.
   */
  constructor(
    private readonly cfg: ConnectionConfig,
    private readonly ctx: PluginContext,
    private early: ChildServer | null = null,
    private readonly http: HttpLink | null = null,
  ) {
    if (cfg.url && !http) throw new Error("mcp-remote: a url server's connection needs http-link.ts");
    this.auth = cfg.url && http ? http.makeAuthProvider(cfg, ctx) : undefined;
    this.codeFlow = http && this.auth instanceof http.AuthCodeProvider ? this.auth : null;
    this.asks = new ClientRequestBudget(cfg.client_requests, ctx, () => this.target);
  }

  /** Where this connection goes, safe to log: no query string, no args (they may hold secrets). */
  get target(): string {
    if (this.cfg.url) {
      const u = new URL(this.cfg.url);
      return `${u.origin}${u.pathname}`;
    }
    return `command "${this.cfg.command}"`;
  }

  /**
   * Runs `op` on a live session before the caller's deadline, reconnecting once if the session
   * was lost; the caller's abort stops it (the host's deadline or cancel). `idempotent` ops are
   * retried after a loss even if the server may have seen them.
   */
  async run<T>(
    what: string,
    caller: Caller,
    idempotent: boolean,
    op: (client: Client, opts: RequestOpts, session: Session) => Promise<T>,
    lateByMs = AFTER_DEADLINE_MS,
  ): Promise<T> {
    const { deadline } = caller;
    for (let attempt = 0; ; attempt++) {
      const left = deadline - Date.now();
      if (left <= 0) throw deadlineError(what);
      const session = await this.acquire(left + lateByMs, caller);
      const request = session.requests.openFor(caller);
      try {
        return await op(
          session.client,
          { timeout: requestTimeout(deadline, lateByMs), signal: request.signal },
          session,
        );
      } catch (err) {
        if (
          attempt === 0 &&
          this.codeFlow &&
          this.http &&
          err instanceof this.http.UnauthorizedError &&
          session.transport instanceof this.http.StreamableHTTPClientTransport
        ) {
          // Step-up: the server asked for more scope (403 insufficient_scope) and refused the request; authorize, then send it again.
          this.ctx.log.info("the server asks for more authorization; waiting for it", {
            target: this.target,
            during: what,
          });
          await session.transport.finishAuth(await this.codeFlow.waitForCode(Math.max(1, deadline - Date.now())));
          continue;
        }
        // A JSON answer past the bound (bounded-fetch.ts) fails only its request: the session stays.
        if (err instanceof Error && TOO_BIG.test(err.message))
          throw new Error(`${what}: ${this.target} sent a message larger than 10 MiB, which mcp-remote does not read`);
        const loss = callAborted(caller) ? "none" : classifyLoss(err, session, this.http?.StreamableHTTPError);
        if (loss === "none") throw err;
        this.drop(session);
        const retry = attempt === 0 && !callAborted(caller) && (loss === "not-sent" || idempotent);
        if (!retry) {
          if (loss === "maybe-sent" && !idempotent) {
            const text = `${what}: the connection to ${this.target} was lost while the request was in flight; not retried because it may have run (${session.why ?? (err as Error).message})`;
            // The server misbehaved (a message over the SDK's limit): not something a retry fixes.
            if (session.why) throw new Error(text);
            // The substrate went away (PB_ERR_SUBSTRATE_UNAVAILABLE, retryable by the caller), not a timeout: the SDK's
            // wrapping of the abort says "-32001", so the cause is left out of the chain the host classifies.
            throw unavailable(text);
          }
          throw err;
        }
        this.ctx.log.info("connection lost; reconnecting once", {
          target: this.target,
          during: what,
          error: (err as Error).message,
        });
      } finally {
        request.done();
      }
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.codeFlow?.close();
    const pending = this.opening;
    const current = this.session;
    this.session = null;
    if (current) await this.shutdown(current);
    if (pending)
      await pending.then(
        (s) => this.shutdown(s),
        () => {},
      );
    // Started at create() and never adopted (no call came): it must not outlive the connector.
    const early = this.early;
    this.early = null;
    if (early) await this.childTransport(early).close();
  }

  private acquire(budgetMs: number, caller: Caller): Promise<Session> {
    if (this.closed) return Promise.reject(new Error("mcp-remote: the connector is closed"));
    if (this.session && !this.session.lost) return Promise.resolve(this.session);
    if (!this.opening) {
      this.opening = this.open().finally(() => {
        this.opening = null;
      });
    }
    // The connect runs on its own timeout (connect_timeout_ms) and outlives a caller that gives up.
    return bounded(this.opening, budgetMs, caller.signal, `connecting to ${this.target}`);
  }

  /** What the server said about itself at initialize (instructions included); connects if needed. */
  serverInfo(session: Session): Record<string, unknown> {
    const info: Record<string, unknown> = { ...(session.client.getServerVersion() ?? {}) };
    const instructions = session.client.getInstructions();
    if (typeof instructions === "string") info.instructions = instructions;
    return info;
  }

  private async open(): Promise<Session> {
    const codeFlow = this.codeFlow;
    if (codeFlow) await codeFlow.start();
    try {
      return await this.openOnce();
    } catch (err) {
      if (!codeFlow || !this.http || !((err as Error).cause instanceof this.http.UnauthorizedError)) throw err;
      // The SDK sent the operator to the authorization server; the redirect brings a code back. The
      // transport that got the 401 finishes: it knows the resource metadata URL the server named.
      const code = await codeFlow.waitForCode(this.cfg.connect_timeout_ms);
      await this.lastHttp!.finishAuth(code);
      return this.openOnce();
    }
  }

  private async openOnce(): Promise<Session> {
    const client = new Client(
      { name: "patchbay-mcp-remote", version: "1.0.0" },
      { capabilities: clientCapabilities(this.cfg), jsonSchemaValidator: hostChecksOutput },
    );
    const transport = this.makeTransport();
    const session: Session = {
      client,
      transport,
      lost: false,
      broken: new AbortController(),
      requests: new RequestSignals(),
      tools: null,
      taskTools: new Set(),
      why: null,
    };
    installHandlers(client, this.cfg, this.ctx, () => this.target, this.asks);
    // The host reads a changed list again (the gateway checks it against its pins before clients hear of it).
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      session.tools = null;
      this.ctx.log.debug("tool list changed", { target: this.target });
      this.ctx.listChanged?.("tools");
    });
    client.setNotificationHandler(PromptListChangedNotificationSchema, () => this.ctx.listChanged?.("prompts"));
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () => this.ctx.listChanged?.("resources"));
    client.onclose = () => {
      session.lost = true;
      breakSession(session, new ConnectionLostError(`the connection to ${this.target} closed`));
      if (this.session === session) this.session = null;
    };
    client.onerror = (err) => {
      this.ctx.log.debug("transport error", { target: this.target, error: err.message });
      if (TOO_BIG.test(err.message))
        session.why = "the server sent a message larger than 10 MiB, so the session was dropped";
      if (STREAM_BROKEN.test(err.message)) {
        // The SDK keeps waiting for an answer on a broken stream; fail what is in flight now.
        session.lost = true;
        breakSession(session, new ConnectionLostError(`the connection to ${this.target} broke: ${err.message}`));
        if (this.session === session) this.session = null;
      }
    };
    try {
      await client.connect(transport, { timeout: this.cfg.connect_timeout_ms });
    } catch (err) {
      session.lost = true;
      await client.close().catch(() => {});
      throw new Error(`mcp-remote: cannot connect to ${this.target}: ${(err as Error).message}`, { cause: err });
    }
    if (this.closed) {
      await this.shutdown(session);
      throw new Error("mcp-remote: the connector was closed while connecting");
    }
    this.session = session;
    // A new session after a lost one may be a restarted server offering other definitions: the host reads
    // the lists again (and the gateway checks them against their pins) without waiting for a call.
    if (this.connectedBefore)
      for (const list of ["tools", "prompts", "resources"] as const) this.ctx.listChanged?.(list);
    this.connectedBefore = true;
    this.ctx.log.debug("connected", { target: this.target, server: client.getServerVersion()?.name });
    this.onConnected?.(client);
    if (client.getServerCapabilities()?.logging) {
      // Best effort: the server's log messages are wanted from this level on.
      client
        .setLoggingLevel(this.cfg.log_level, { timeout: this.cfg.connect_timeout_ms })
        .catch((err: Error) =>
          this.ctx.log.debug("logging/setLevel failed", { target: this.target, error: err.message }),
        );
    }
    return session;
  }

  private makeTransport(): Transport {
    if (this.cfg.url && this.http) {
      const authProvider = this.auth;
      return (this.lastHttp = new this.http.StreamableHTTPClientTransport(new URL(this.cfg.url), {
        requestInit: { headers: this.cfg.headers ?? {} },
        // One message at most 10 MiB, as over stdio (bounded-fetch.ts).
        fetch: this.traceHeaders.wrap(this.http.boundedFetch()),
        ...(authProvider ? { authProvider } : {}),
        // A reconnect of a broken stream is tried soon and given up soon: a dead server must fail calls quickly.
        reconnectionOptions: {
          initialReconnectionDelay: 200,
          maxReconnectionDelay: 1_000,
          reconnectionDelayGrowFactor: 1.5,
          maxRetries: 2,
        },
      }));
    }
    // The server started at create() for the first session (even if it already exited: its
    // stderr then says why, and the connect fails with it); a new one for every later session.
    const early = this.early;
    this.early = null;
    const transport = this.childTransport(
      early ?? startServer({ command: this.cfg.command!, args: this.cfg.args, cwd: this.cfg.cwd, env: this.cfg.env }),
    );
    const stderr = transport.stderr;
    if (stderr) {
      // Forwarded through ctx.log so the host scrubs secrets, instead of inheriting our stderr.
      const budget = new LogBudget(STDERR_BUDGET_PER_SECOND, (dropped) =>
        this.ctx.log.warn("server stderr lines dropped: more than the budget per second", {
          target: this.target,
          dropped,
        }),
      );
      createInterface({ input: stderr }).on("line", (line) => {
        if (!budget.take()) return;
        this.ctx.log.info("server stderr", {
          line: line.length > MAX_STDERR_LINE ? `${line.slice(0, MAX_STDERR_LINE)}…` : line,
        });
      });
    }
    return transport;
  }

  private drop(session: Session): void {
    session.lost = true;
    if (this.session === session) this.session = null;
    void this.shutdown(session);
  }

  private async shutdown(session: Session): Promise<void> {
    session.lost = true;
    const transport = session.transport;
    if (this.http && transport instanceof this.http.StreamableHTTPClientTransport && transport.sessionId) {
      // Polite: tell the server the session is over, but never wait long for a server that is gone.
      await bounded(transport.terminateSession(), 1_000, new AbortController().signal, "terminating the session").catch(
        () => {},
      );
    }
    // A stdio server is ended by its transport's close (stdin, SIGTERM, SIGKILL; child-transport.ts).
    await session.client.close().catch(() => {});
  }

  private childTransport(child: ChildServer): ChildTransport {
    return new ChildTransport(child, (pid) =>
      this.ctx.log.warn("stdio server ignored stdin closing and SIGTERM; killed", { target: this.target, pid }),
    );
  }
}
