/**
 * A running `patchbay serve`: the gateway over the chosen transports, live health feeding the
 * gateway's tool list, the control socket, and (with --watch) hot reload. One object so the CLI
 * can start it and close it in one place.
 */
import { isPatchbayError, pbError, type PatchbayError } from "../errors.js";
import type { ResolvedConfig } from "../config/types.js";
import type { Host } from "../host/api.js";
import type { LiveHealth } from "../registry/live-health.js";
import { STDIO_MAX_LINE } from "./front-lines.js";
import { takeFront } from "./stdio-front.js";
import { StdioLaneTransport } from "./stdio-lane.js";
import { Gateway } from "./gateway.js";
import type { HttpGateway } from "./http.js";
import { startControl, type ControlServer } from "./control.js";
import { loadToken, stateDir, type Token } from "./state-dir.js";
import { ClientRegistry } from "./clients/registry.js";
import { startAuditTrail, type AuditTrail } from "./audit/trail.js";
import { openGatewayState, type GatewayState } from "./state/gateway-state.js";
import { ceilingProblems, clientRows, httpRoutes, metricsFor, noteRefusals, statusFor } from "./serve-http.js";
import { invalidGateway, takeReload } from "./serve-reload.js";
import { loadConfig } from "../config/load.js";
import { startWatching, type Watcher } from "./watch.js";
import { pinsStatus } from "./pins/report.js";
import type { StatusDocument } from "./status-document.js";

export type { StatusDocument } from "./status-document.js";
import { controlHandler } from "./control-ops.js";
import type { MetricsListener } from "./observe-routes.js";
import { RecentRefusals } from "./refusals.js";
import { loadTracing, tracingWanted, type CallTracer } from "./tracing.js";

export interface ServeOptions {
  mcp: boolean;
  /** stateless: no sessions, for replicas behind a round-robin balancer (http-stateless.ts). */
  http: { host: string; port: number; stateless?: boolean } | null;
  /** Where human messages go (stderr: stdout may be the MCP stream). */
  say: (line: string) => void;
  env?: Record<string, string | undefined>;
  /** --watch: hot reload on connectors.json and plugin folder changes. */
  watch?: boolean;
  /** --metrics-port: /metrics without the token on 127.0.0.1 (observe-routes.ts). */
  metricsPort?: number | null;
}

export interface Serving {
  /**
   * After the boot: the first live catalog (refusing an invalid gateway section), live health and
   * (with --watch) hot reload. Until then the transports answer from the cached catalog.
   */
  ready(): Promise<void>;
  gateway: Gateway;
  http: HttpGateway | null;
  token: Token | null;
  control: ControlServer | null;
  /** The token-free metrics listener (--metrics-port), or null. */
  metricsListener: MetricsListener | null;
  health: LiveHealth;
  /** Resolves when the stdio client went away (stdin closed): the server should stop. */
  stdioClosed: Promise<void>;
  status(): StatusDocument;
  close(): Promise<void>;
}

export async function startServing(host: Host, opts: ServeOptions): Promise<Serving> {
  const startedAt = Date.now();
  const dir = stateDir(host.config?.file ?? null);
  const gateway = new Gateway(host, {
    expose: host.config?.gateway.expose ?? {},
    logger: host.logger,
    stateDir: dir,
    say: opts.say,
  });
  let watcher: Watcher | null = null;
  let health: LiveHealth | null = null;
  let http: HttpGateway | null = null;
  let token: Token | null = null;
  let clients: ClientRegistry | null = null;
  let shared: GatewayState | null = null;
  let control: ControlServer | null = null;
  let metricsListener: MetricsListener | null = null;
  let tracer: CallTracer | null = null;
  let audit: AuditTrail | null = null;
  let stdioClosed: Promise<void> = new Promise(() => undefined);
  const status = (): StatusDocument => ({
    pid: process.pid,
    configFile: host.config?.file ?? null,
    startedAt,
    transports: { mcp: opts.mcp, http: http?.url ?? null },
    httpSessions: http ? { mode: http.mode, ...http.sessions() } : null,
    booting: gateway.booting,
    tools: gateway.toolNames().length,
    pins: pinsStatus(gateway.pins),
    instances: host.liveStatus().map((i) => ({
      ...i,
      // While the boot runs, an instance that has not finished it is booting, not stopped.
      ...(gateway.booting && i.state === "stopped" && !i.error ? { state: "booting" as never, healthy: false } : {}),
      ...gateway.calls.stats.of(i.id),
    })),
  });
  const stopAll = async () => {
    watcher?.close();
    health?.stop();
    await http?.close();
    await shared?.close();
    await metricsListener?.close();
    await control?.close();
    // After the transports: the last calls' entries are buffered by now, and written here.
    await audit?.close();
    // Sends the spans still batched before the process ends.
    await tracer?.shutdown().catch(() => undefined);
  };
  try {
    // Metrics are counted only where someone can read them (loaded then, metrics.ts), from the first
    // call on, so before any transport opens. Client rows are read when asked.
    const clientsNow = () => (clients ? clientRows(clients, gateway.calls.gate.usage) : []);
    const metrics = await metricsFor(!!opts.http || opts.metricsPort != null, status, clientsNow);
    gateway.calls.observer = metrics;
    const env = opts.env ?? process.env;
    // The SDK is imported only then (tracing.ts): with no OTEL_* variable nothing of it loads.
    if (tracingWanted(env)) tracer = await loadTracing(host.scrubber);
    gateway.calls.tracer = tracer;
    // stdio first: the client that spawned this process is waiting for its initialize answer.
    if (opts.mcp) {
      const server = gateway.createServer();
      // The transport closes on a line over its limit (as the SDK's does); 64 MiB lets a 10 MB request
      // arrive and be refused as a coded tool error (MAX_ARGS_BYTES) instead.
      // When the head start (gateway/stdio-front.ts) answered first, its streams carry the rest.
      // tools/call takes the lane past the SDK's dispatch (stdio-lane.ts says why and what it keeps).
      const front = takeFront();
      const tooLong = () =>
        opts.say(
          `patchbay: the MCP client sent a line longer than ${STDIO_MAX_LINE / 2 ** 20} MiB, which serve does not read; closing the connection.`,
        );
      const transport = new StdioLaneTransport(front?.input ?? process.stdin, front?.output ?? process.stdout, {
        maxLineBytes: STDIO_MAX_LINE,
        onOverflow: tooLong,
        toolCall: (params, extra) => gateway.callTool(params, extra),
        notify: (notification, requestId) => server.notification(notification, { relatedRequestId: requestId }),
      });
      stdioClosed = new Promise((resolve) => {
        if (process.stdin.readableEnded) return resolve();
        process.stdin.once("end", resolve);
        process.stdin.once("close", resolve);
        const onclose = server.onclose;
        server.onclose = () => (onclose?.(), resolve());
      });
      await server.connect(transport);
      if (front?.overflowed) {
        tooLong();
        front.input.once("end", () => void transport.close());
      }
    }
    try {
      control = await startControl(
        dir,
        controlHandler(host, gateway, status, () => reloadClients()),
      );
    } catch (err) {
      // Two clients may each spawn `serve --mcp` for one config: the second still serves its
      // client, and `patchbay status` reaches the first.
      if (!isPatchbayError(err) || err.code !== "PB_ERR_GATEWAY_LISTEN") throw err;
      opts.say(`patchbay: warning: ${err.message} This server runs without a control channel.`);
    }
    if (metrics && opts.metricsPort != null) {
      const { startMetricsListener } = await import("./observe-routes.js");
      metricsListener = await startMetricsListener(metrics, opts.metricsPort);
      opts.say(`patchbay: Prometheus metrics at ${metricsListener.url} (no token; loopback only).`);
    }
    if (opts.http) {
      token = loadToken(dir, opts.env);
      clients = await ClientRegistry.create(token.value, host.config?.gateway ?? { clients: [], oauth: null });
      // Before anything listens: a gateway.state that cannot be reached stops the start.
      shared = await openGatewayState(gateway, clients, host.config?.gateway.state ?? null, {
        stateless: !!opts.http.stateless,
        say: opts.say,
      });
      // The trail of who called what: an HTTP gateway's callers are many (stdio has one, the operator).
      audit = await startAuditTrail({
        dir,
        ...host.config?.gateway.audit,
        postgres: host.config?.gateway.state?.postgres ?? null,
        say: (line) => opts.say(host.scrubber.scrub(line)),
      });
      gateway.calls.gate.audit = audit.record;
      const refusals = new RecentRefusals();
      gateway.calls.observer = noteRefusals(metrics!, refusals, gateway.calls.gate.usage);
      const routes = await httpRoutes(metrics!, () => ({
        status: status(),
        tools: gateway.calls.routes(),
        refusals: refusals.list(),
        clients: clientsNow(),
      }));
      http = await (await import("./http.js")).startHttpGateway(gateway, {
        ...opts.http,
        clients,
        shared: shared.sessions ?? undefined,
        status: (caller) => statusFor(caller, status(), clients!),
        env: opts.env,
        routes,
        onAnswered: (path, code) => {
          metrics!.httpRequest(path, code);
          if (code >= 400) refusals.note(`HTTP ${metrics!.pathLabel(path)}`, String(code));
        },
      });
      opts.say(
        `patchbay: MCP over Streamable HTTP at ${http.url}${http.mode === "stateful" ? "" : `, ${http.mode}`} (bearer token from ${token.source}${token.created ? ", just created" : ""}); status at GET /status, metrics at GET /metrics.`,
      );
    }
  } catch (err) {
    await stopAll();
    throw err;
  }

  /** The clients of connectors.json now in force; sessions of clients no longer there end. */
  async function applyClients(g: Parameters<ClientRegistry["reload"]>[0]): Promise<{ clients: number; ended: number }> {
    if (!clients) return { clients: 0, ended: 0 };
    await clients.reload(g);
    const ended = gateway.dropCallers((id) => clients!.has(id));
    return { clients: clients.ids().length, ended };
  }

  /** `patchbay client add|revoke` asked: connectors.json is read again for its clients only. */
  async function reloadClients(): Promise<{ clients: number; ended: number }> {
    const file = host.config?.file;
    if (!file || !clients)
      throw pbError("PB_ERR_USAGE", "This serve has no HTTP gateway reading connectors.json: no clients to reload.");
    const config = await loadConfig({ config: file, env: opts.env ?? process.env });
    const problems = await gatewayProblems(config.gateway);
    if (problems.length > 0) throw invalidGateway(problems);
    return applyClients(config.gateway);
  }

  /** What a new gateway section names that serve cannot honour: more than expose offers, the operator's token. */
  async function gatewayProblems(g: ResolvedConfig["gateway"]): Promise<PatchbayError[]> {
    return [...(await ceilingProblems(host, g)), ...(clients?.operatorClashes(g) ?? [])];
  }

  async function ready(): Promise<void> {
    try {
      const problems = [...(await gateway.start()), ...(await ceilingProblems(host))];
      if (problems.length > 0) throw invalidGateway(problems);
      const live = host.startLiveHealth(
        (change) => {
          // The health error may quote a plugin's log line: scrub before it reaches clients.
          const what = host.scrubber.scrub(
            change.healthy
              ? `${change.id} is healthy again; its tools are back`
              : `${change.id} turned unhealthy${change.entry.error ? ` (${change.entry.error.message})` : ""}; its tools are withdrawn until it recovers`,
          );
          host.logger[change.healthy ? "info" : "warn"]({ instance: change.id, healthy: change.healthy }, what);
          gateway.announce(change.healthy ? "info" : "warning", what, change.id);
          void gateway.refresh();
        },
        // A healthy tick also refreshes: an upstream server's own tool list may have changed.
        () => void gateway.refresh(),
      );
      health = live;
      if (opts.watch) {
        watcher = startWatching(host, (o) =>
          takeReload(o, { host, gateway, live, say: opts.say, applyClients, gatewayProblems }),
        );
        opts.say("patchbay: watching connectors.json and the plugin folders for changes.");
      }
    } catch (err) {
      await stopAll();
      throw err;
    }
  }

  return {
    ready,
    gateway,
    http,
    token,
    control,
    get metricsListener() {
      return metricsListener;
    },
    get health() {
      return health as LiveHealth;
    },
    stdioClosed,
    status,
    async close() {
      await stopAll();
      await gateway.close();
    },
  };
}
