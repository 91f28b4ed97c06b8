/**
 * A real webhook receiver on 127.0.0.1 (node:http), written the way an adopter would write one:
 * it checks the HMAC signature over "<timestamp>.<body>" with verifySignature, answers 401 to a
 * bad one, records what it accepted, and answers requests that expect a reply by echoing the
 * correlation id. Some paths misbehave on purpose: /slow never answers in time, /broken answers
 * 500, /skip acknowledges without delivering, /liar answers a request with the wrong correlation id.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { verifySignature } from "../src/signing.js";

export interface Received {
  path: string;
  method: string;
  headers: IncomingMessage["headers"];
  body: Record<string, unknown>;
}

export interface Receiver {
  url: string;
  received: Received[];
  close(): Promise<void>;
}

export async function startReceiver(secret: string | null): Promise<Receiver> {
  const received: Received[] = [];
  const server: Server = createServer(async (req, res) => {
    const answer = (status: number, data?: unknown) => {
      res.writeHead(status, data === undefined ? {} : { "content-type": "application/json" });
      res.end(data === undefined ? undefined : JSON.stringify(data));
    };
    const path = req.url ?? "/";
    if (req.method !== "POST") return answer(path.startsWith("/missing") ? 404 : 200);
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    if (
      secret &&
      !verifySignature(
        secret,
        req.headers["x-patchbay-timestamp"] as string,
        text,
        req.headers["x-patchbay-signature"] as string,
      )
    ) {
      return answer(401, { error: "bad signature" });
    }
    const body = JSON.parse(text) as Record<string, unknown>;
    if (path === "/slow") return; // never answers; the client's timeout ends it
    if (path === "/broken") return answer(500, { error: "receiver is broken" });
    received.push({ path, method: req.method, headers: req.headers, body });
    const meta = body.meta as { correlation_id?: string; dispatch_id?: string } | undefined;
    if (body.expects_response) {
      return answer(200, {
        correlation_id: path === "/liar" ? "someone-else" : meta?.correlation_id,
        content: `pong: ${String(body.content ?? body.prompt)}`,
      });
    }
    if (path === "/skip") return answer(202, { delivery_skipped: true });
    if (body.kind === "wake") return answer(200, { session_id: "session-1" });
    answer(200, { delivery_id: `rcv-${received.length}` });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
