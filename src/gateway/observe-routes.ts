/**
 * What `serve --http` shows an operator beside MCP: GET /metrics (Prometheus exposition, metrics.ts).
 * Each route checks access itself, through one function per audience, so a later kind of
 * credential (a client granted `metrics` only) extends the check in one place.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { pbError } from "../errors.js";
import type { ExtraRoutes, RouteAccess } from "./http.js";
import { requestPath } from "./http.js";
import { isRefusal, type AuthRefusal, type Caller } from "./clients/caller.js";
import { reject } from "./http-replies.js";
import type { Metrics } from "./metrics.js";
import { allowedHostnames, hostAndOriginCheck } from "./origin.js";

/** Who may read /metrics: the operator, or a client granted `metrics` in connectors.json. */
export async function mayScrape(req: IncomingMessage, access: RouteAccess): Promise<Caller | AuthRefusal> {
  const verdict = await access.caller(req.headers.authorization);
  if (isRefusal(verdict) || verdict.policy === null || verdict.policy.metrics) return verdict;
  return {
    status: 403,
    code: "PB_ERR_CLIENT_FORBIDDEN",
    message: `Client "${verdict.id}" may not read /metrics: it has no metrics grant (connectors.json ${verdict.policy.pointer}/metrics).`,
    hint: `The gateway's operator grants it: "metrics": true at ${verdict.policy.pointer} of connectors.json (or \`patchbay client add ${verdict.id} --metrics\` for a new client).`,
  };
}

export function observeRoutes(metrics: Metrics): ExtraRoutes {
  return (req, res, pathname, access) => {
    if (pathname !== "/metrics") return false;
    void mayScrape(req, access).then((verdict) => {
      if (isRefusal(verdict)) {
        if (verdict.challenge) res.setHeader("www-authenticate", verdict.challenge);
        reject(res, verdict.status, verdict.code, verdict.message, verdict.hint);
      } else answerScrape(metrics, req, res);
    });
    return true;
  };
}

function answerScrape(metrics: Metrics, req: IncomingMessage, res: ServerResponse): void {
  if (req.method !== "GET" && req.method !== "HEAD") {
    res.setHeader("allow", "GET, HEAD");
    return reject(res, 405, "PB_ERR_USAGE", "/metrics answers GET only.");
  }
  metrics.scrape().then(
    (text) => {
      res.writeHead(200, { "content-type": metrics.contentType, "cache-control": "no-store" });
      res.end(req.method === "HEAD" ? undefined : text);
    },
    (err: unknown) => {
      if (!res.headersSent)
        reject(res, 500, "PB_ERR_INTERNAL", `The metrics could not be read: ${(err as Error).message}`);
      else res.end();
    },
  );
}

export interface MetricsListener {
  port: number;
  url: string;
  close(): Promise<void>;
}

/**
 * `serve --metrics-port P`: /metrics alone, without the token, on 127.0.0.1 only (a scraper on
 * this machine, or `serve --mcp`, which has no HTTP server). The Host/Origin check still applies:
 * a web page must not read it through DNS rebinding.
 */
export async function startMetricsListener(metrics: Metrics, port: number): Promise<MetricsListener> {
  const host = "127.0.0.1";
  const denied = hostAndOriginCheck(allowedHostnames(host, {}));
  const server: Server = createServer((req, res) => {
    const why = denied(req.headers.host, req.headers.origin);
    if (why) return reject(res, 403, "PB_ERR_GATEWAY_HOST_DENIED", `Refused: ${why}.`);
    const pathname = requestPath(req.url ?? "/");
    if (pathname !== "/metrics")
      return reject(res, 404, "PB_ERR_USAGE", `Nothing at ${pathname.slice(0, 100)}: the metrics are at /metrics.`);
    answerScrape(metrics, req, res);
  });
  server.headersTimeout = 30_000;
  server.requestTimeout = 30_000;
  await new Promise<void>((resolve, fail) => {
    server.once("error", (err: NodeJS.ErrnoException) =>
      fail(
        pbError("PB_ERR_GATEWAY_LISTEN", `Cannot listen on ${host}:${port} for metrics: ${err.code ?? err.message}.`, {
          host,
          port,
        }),
      ),
    );
    server.listen(port, host, () => resolve());
  });
  const bound = (server.address() as AddressInfo).port;
  return {
    port: bound,
    url: `http://${host}:${bound}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
