/**
 * The pieces `serve --http` adds around the gateway: the observer that feeds the status page's
 * recent refusals, the routes beside MCP (/metrics, the page), and GET /status as each caller may
 * read it.
 */
import { OPERATOR, seesAny, type Caller } from "./clients/caller.js";
import type { ClientRegistry } from "./clients/registry.js";
import type { ExtraRoutes } from "./http.js";
import type { CallObserver, Metrics } from "./metrics.js";
import type { PageClient, PageData } from "./page-html.js";
import type { RecentRefusals } from "./refusals.js";
import type { StatusDocument } from "./status-document.js";
import type { Host } from "../host/api.js";
import type { PatchbayError } from "../errors.js";
import { clientCeilingErrors } from "./clients/ceiling.js";
import type { ClientUsage } from "./clients/usage.js";

/**
 * The metrics' call observer, also noting for the status page the calls refused with a Patchbay
 * code and the gateway clients' requests refused at the gate (by policy or quota).
 */
export function noteRefusals(metrics: Metrics, refusals: RecentRefusals, usage: ClientUsage): CallObserver {
  usage.onRefused = (id, why, what) =>
    refusals.note(`client ${id}: ${what}`, why === "policy" ? "PB_ERR_CLIENT_FORBIDDEN" : "PB_ERR_CLIENT_QUOTA");
  return {
    toolCall(instance, tool, outcome, seconds, client) {
      metrics.toolCall(instance, tool, outcome, seconds, client);
      if (outcome.startsWith("PB_ERR_")) refusals.note(`tools/call ${tool}`, outcome);
    },
    idempotentReplay: (tool) => metrics.idempotentReplay(tool),
  };
}

/** /metrics, then the status page, each with its own access check (observe-routes.ts, status-page.ts). */
export async function httpRoutes(metrics: Metrics, page: () => PageData): Promise<ExtraRoutes> {
  const metricsRoute = (await import("./observe-routes.js")).observeRoutes(metrics);
  const pageRoutes = (await import("./status-page.js")).statusPageRoutes(page);
  return (req, res, pathname, access) =>
    metricsRoute(req, res, pathname, access) || pageRoutes(req, res, pathname, access);
}

/**
 * GET /status as `caller` may read it: the operator all of it; a client its own id and quota, and
 * only the instances it sees (no file paths, pids or other clients).
 */
export function statusFor(caller: Caller, doc: StatusDocument, clients: ClientRegistry): unknown {
  if (caller === OPERATOR) return { ...doc, clients: clients.ids() };
  return {
    client: { id: caller.id, limits: caller.policy?.limits ?? null },
    booting: doc.booting,
    instances: doc.instances.filter((i) => seesAny(caller, i.id)),
  };
}

/** The metrics of a serve that shows them (HTTP, or --metrics-port), else null: the metrics module loads only then. */
export async function metricsFor(
  wanted: boolean,
  status: () => StatusDocument,
  clients: () => PageClient[],
): Promise<Metrics | null> {
  return wanted ? (await import("./metrics.js")).createMetrics(status, clients) : null;
}

/** The status page's client rows: each configured client, its limits and what it has done since start. */
export function clientRows(clients: ClientRegistry, usage: ClientUsage): PageClient[] {
  return clients.list().map((c) => ({ ...c, ...usage.of(c.id) }));
}

/** Clients that name more than the gateway exposes (clients/ceiling.ts): serve refuses to start. */
export async function ceilingProblems(host: Host, g = host.config?.gateway): Promise<PatchbayError[]> {
  const specs = [...(g?.clients ?? []), ...(g?.oauth?.clients ?? [])];
  if (!g || specs.length === 0) return [];
  const caps = await host.capabilities();
  return clientCeilingErrors(
    caps.map((c) => ({ id: c.id, kind: c.kind ?? null, capabilities: c.optional ?? [] })),
    g.expose,
    specs,
  );
}
