/**
 * The HTTP plumbing the model-API stubs share: 127.0.0.1 only, port 0, every matching request's
 * JSON body kept (in order) for later substring checks, anything else answered 404 (`HEAD /` and
 * `GET /` 200, for clients that probe reachability). The stub modules only say how to answer.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface StubRequest {
  /** The parsed JSON body. */
  body: Record<string, unknown>;
  /** The raw body text, for substring checks. */
  text: string;
  /** The request path with its query, e.g. "/v1beta/models/x:streamGenerateContent?alt=sse". */
  path: string;
}

export interface ModelStub {
  url: string;
  requests: StubRequest[];
  close(): Promise<void>;
}

const MAX_BODY = 32 * 1024 * 1024;

/** Serves `answer` for requests `matches` accepts; the request is recorded before it is answered. */
export async function serveStub(
  matches: (req: IncomingMessage, url: URL) => boolean,
  answer: (request: StubRequest, index: number, res: ServerResponse) => void,
  /** The 404 body in the API's own error shape (clients may parse it). */
  notFound: (message: string) => unknown = (message) => ({ error: { code: 404, message } }),
): Promise<ModelStub> {
  const requests: StubRequest[] = [];
  const server: Server = createServer((req, res) => {
    void handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (req.method === "HEAD" || (req.method === "GET" && url.pathname === "/")) {
      res.writeHead(200).end();
      return;
    }
    if (!matches(req, url)) {
      await readBody(req).catch(() => "");
      res
        .writeHead(404, { "content-type": "application/json" })
        .end(JSON.stringify(notFound(`stub: no ${req.method} ${url.pathname}`)));
      return;
    }
    const text = await readBody(req);
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      res.writeHead(400).end();
      return;
    }
    const request = { body, text, path: url.pathname + url.search };
    const index = requests.length;
    requests.push(request);
    answer(request, index, res);
  }
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) req.destroy(new Error("request body too large"));
      else chunks.push(c);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}
