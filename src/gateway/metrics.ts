/**
 * Prometheus metrics of a running `serve`, in a registry per server (exposition.ts, which writes the
 * text format as prom-client does), so two servers in one process do not mix. Two kinds of figures:
 *
 * - counted as they happen (tool calls and their duration, idempotent replays, HTTP requests): the
 *   gateway calls the hooks below;
 * - read at scrape time from the same status document `patchbay status --json` shows (instance
 *   state and health, restarts, server requests refused, sessions, catalog size), so there is one
 *   source for both and nothing to keep in step.
 *
 * Every label value is bounded: an upstream server names its tools, so a hostile one with 10,000
 * names could otherwise make 10,000 series per metric (and a scrape of megabytes). Each label keeps
 * the first LABEL_CAPS[label] values it sees; any later one is counted under `other`.
 *
 * A Patchbay instance is labelled `instance_id`, not `instance`: Prometheus gives every scraped
 * series its own `instance` (the target's host:port) and would rename ours to `exported_instance`.
 */
import { CONTENT_TYPE, Counter, Gauge, Histogram, Registry } from "./exposition.js";
import type { StatusDocument } from "./status-document.js";

/** How many distinct values each label keeps before folding the rest into `other`. */
export const LABEL_CAPS = {
  instance: 100,
  tool: 200,
  outcome: 50,
  path: 10,
  status: 30,
  state: 10,
  client: 100,
} as const;
type LabelName = keyof typeof LABEL_CAPS;
/** A label value longer than this is cut (a tool name is no payload). */
const MAX_LABEL_CHARS = 100;
export const OTHER = "other";

/** The paths the HTTP gateway serves; any other request counts under `other`. */
const KNOWN_PATHS = new Set([
  "/mcp",
  "/status",
  "/metrics",
  "/",
  "/events",
  "/signin",
  "/signout",
  "/page.js",
  "/page.css",
]);
const pathLabel = (path: string): string => (KNOWN_PATHS.has(path) ? path : OTHER);

/** The outcome of one tool call: "ok", "tool_error" (the server's own error result) or a PB_ERR_* code. */
export type CallOutcome = string;

/** What the gateway tells the metrics as it works (ToolCalls and the HTTP server call these). */
export interface CallObserver {
  /** `client`: "operator" or the gateway client's id from connectors.json (bounded by the config). */
  toolCall(instance: string, tool: string, outcome: CallOutcome, seconds: number, client: string): void;
  idempotentReplay(tool: string): void;
}

class BoundedLabels {
  private readonly seen = new Map<LabelName, Set<string>>();

  fold(label: LabelName, value: string): string {
    let set = this.seen.get(label);
    if (!set) this.seen.set(label, (set = new Set()));
    if (set.has(value)) return value;
    const cut = value.length > MAX_LABEL_CHARS ? value.slice(0, MAX_LABEL_CHARS) : value;
    if (set.has(cut)) return cut;
    if (set.size >= LABEL_CAPS[label]) return OTHER;
    set.add(cut);
    return cut;
  }
}

export interface Metrics extends CallObserver {
  httpRequest(path: string, status: number): void;
  /** The path as the metrics label it (a known path, else `other`): what a client sent, bounded. */
  pathLabel(path: string): string;
  /** The exposition text (concurrent scrapes share one rendering). */
  scrape(): Promise<string>;
  contentType: string;
}

/**
 * A rendering is reused by scrapes within this long of it: a rendering is ~1-3 ms of the event
 * loop, and 100 scrapers arriving one after another would otherwise each pay it, slowing calls
 * (measured in `npm run bench`, metrics topic). Prometheus scrapes every few seconds at most.
 */
const REUSE_MS = 250;

/** Durations of tool calls: from a cached read (~1 ms) to the default 30 s call deadline. */
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** A gateway client's refusals so far (clients/usage.ts), read at scrape time. */
export interface ClientRefusals {
  id: string;
  refusedByPolicy: number;
  refusedByQuota: number;
}

export function createMetrics(status: () => StatusDocument, clients: () => ClientRefusals[] = () => []): Metrics {
  const registry = new Registry();
  const labels = new BoundedLabels();
  // One status document per scrape: each pull metric reads the same snapshot.
  let snapshot: StatusDocument | null = null;
  const now = (): StatusDocument => (snapshot ??= status());
  const instances = () => now().instances.map((i) => ({ ...i, id: labels.fold("instance", i.id) }));

  const calls = registry.register(
    new Counter(
      "patchbay_tool_calls_total",
      "Tool calls answered by the gateway, by instance, tool, outcome (ok, tool_error or a PB_ERR_* code) and client (operator or a gateway client's id).",
      ["instance_id", "tool", "outcome", "client"],
    ),
  );
  const duration = registry.register(
    new Histogram(
      "patchbay_tool_call_duration_seconds",
      "Duration of tool calls through the host, by instance.",
      ["instance_id"],
      DURATION_BUCKETS,
    ),
  );
  const replays = registry.register(
    new Counter(
      "patchbay_idempotent_replays_total",
      "Tool calls answered from an earlier call with the same idempotency key, without running again.",
      ["tool"],
    ),
  );
  const http = registry.register(
    new Counter("patchbay_http_requests_total", "HTTP requests answered by serve --http, by path and status code.", [
      "path",
      "status",
    ]),
  );
  registry.register(
    new Gauge(
      "patchbay_instance_healthy",
      "1 when the instance passed its last health check, else 0.",
      ["instance_id"],
      (g) => {
        g.reset();
        for (const i of instances()) g.set({ instance_id: i.id }, i.healthy ? 1 : 0);
      },
    ),
  );
  registry.register(
    new Gauge(
      "patchbay_instance_state",
      "The instance's state: 1 for the state it is in (booting, ready, stopped, ...).",
      ["instance_id", "state"],
      (g) => {
        g.reset();
        for (const i of instances()) g.set({ instance_id: i.id, state: labels.fold("state", String(i.state)) }, 1);
      },
    ),
  );
  pullCounter(
    registry,
    "patchbay_instance_restarts_total",
    "Restarts of the instance's worker.",
    ["instance_id"],
    (add) => {
      for (const i of instances()) add({ instance_id: i.id }, i.restarts);
    },
  );
  pullCounter(
    registry,
    "patchbay_server_requests_refused_total",
    "Sampling, elicitation and roots requests from an upstream server that the gateway refused.",
    ["instance_id"],
    (add) => {
      for (const i of instances()) add({ instance_id: i.id }, i.clientRequests?.refused ?? 0);
    },
  );
  pullCounter(
    registry,
    "patchbay_server_requests_served_total",
    "Sampling, elicitation and roots requests from an upstream server that the gateway answered.",
    ["instance_id"],
    (add) => {
      for (const i of instances()) add({ instance_id: i.id }, i.clientRequests?.served ?? 0);
    },
  );
  registry.register(
    new Gauge("patchbay_http_sessions_open", "Open MCP sessions of serve --http (0 when stateless).", [], (g) =>
      g.set({}, now().httpSessions?.open ?? 0),
    ),
  );
  pullCounter(registry, "patchbay_http_session_evictions_total", "Idle MCP sessions evicted to make room.", [], (add) =>
    add({}, now().httpSessions?.evicted ?? 0),
  );
  registry.register(
    new Gauge("patchbay_catalog_tools", "Tools the gateway offers its clients.", [], (g) => g.set({}, now().tools)),
  );

  pullCounter(
    registry,
    "patchbay_client_refusals_total",
    "Requests of a gateway client refused before reaching an instance, by client and reason (policy or quota).",
    ["client", "reason"],
    (add) => {
      for (const c of clients()) {
        const client = labels.fold("client", c.id);
        add({ client, reason: "policy" }, c.refusedByPolicy);
        add({ client, reason: "quota" }, c.refusedByQuota);
      }
    },
  );
  let rendered: { text: string; at: number } | null = null;
  return {
    contentType: CONTENT_TYPE,
    toolCall(instance, tool, outcome, seconds, client) {
      const id = labels.fold("instance", instance);
      calls.inc({
        instance_id: id,
        tool: labels.fold("tool", tool),
        outcome: labels.fold("outcome", outcome),
        client: labels.fold("client", client),
      });
      duration.observe({ instance_id: id }, seconds);
    },
    idempotentReplay(tool) {
      replays.inc({ tool: labels.fold("tool", tool) });
    },
    pathLabel,
    httpRequest(path, status) {
      http.inc({
        path: pathLabel(path),
        status: labels.fold("status", String(status)),
      });
    },
    scrape() {
      // Rendering is synchronous: concurrent scrapes cannot interleave, and a later one within
      // REUSE_MS gets the same text.
      if (rendered && performance.now() - rendered.at < REUSE_MS) return Promise.resolve(rendered.text);
      snapshot = null;
      try {
        const text = registry.render();
        rendered = { text, at: performance.now() };
        return Promise.resolve(text);
      } finally {
        snapshot = null;
      }
    },
  };
}

/**
 * A counter whose value is read from the status document at scrape time (a restart count the
 * registry keeps): reset, then set to the current totals.
 */
function pullCounter(
  registry: Registry,
  name: string,
  help: string,
  labelNames: string[],
  read: (add: (labels: Record<string, string>, value: number) => void) => void,
): void {
  registry.register(
    new Counter(name, help, labelNames, (c) => {
      c.reset();
      read((l, v) => c.inc(l, Math.max(0, v)));
    }),
  );
}
