/**
 * One HTTP exchange with Ollama through node:http(s). Not fetch(): its first use in a thread loads
 * Node's undici (~90 ms of CPU, measured), and an ollama instance makes one request at every
 * boot, its health check, in a boot that is CPU-bound.
 */
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";

export interface HttpAnswer {
  status: number;
  text: string;
}

/** Sends `body` (JSON text) to `url` and reads the whole answer; `signal` aborts either step. */
export function exchange(
  method: string,
  url: string,
  body: string | undefined,
  signal: AbortSignal,
): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const send = new URL(url).protocol === "https:" ? httpsRequest : httpRequest;
    const req = send(url, {
      method,
      signal,
      headers:
        body === undefined ? {} : { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
    });
    req.on("error", reject);
    req.on("response", (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("error", reject);
      // A connection that closes before the end of the answer (the server died, or the signal
      // destroyed it) settles the request too; after 'end' this rejection is a no-op.
      res.on("close", () => reject(signal.aborted ? signal.reason : new Error("the connection closed mid-answer")));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }));
    });
    req.end(body);
  });
}
