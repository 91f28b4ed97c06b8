/**
 * Helpers for the shared-session tests: replicas of one gateway on one PostgreSQL (each its own
 * folder, one shared folder of watched files), raw MCP requests to a chosen replica, and a GET
 * stream read event by event.
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import { tempDir, writeConfig } from "../helpers.js";
import { startHttpServe, type HttpServe } from "./_gateway.js";

export const TOKEN = "shared-operator-token-0123456789";
export const OTHER_TOKEN = "shared-other-client-token-0123456789";
export const VERSION = "2025-11-25";

/**
 * `n` replicas of one gateway (stateful HTTP, gateway.state on `pgUrl`), watching one folder. A test
 * that counts what a replica holds names its own `instance`: replicas claim subscriptions other
 * tests' killed replicas left on theirs.
 */
export async function startReplicas(
  pgUrl: string,
  n: number,
  instance = "w",
): Promise<{ replicas: HttpServe[]; watched: string }> {
  const watched = tempDir("pb-watched-");
  const replicas = await Promise.all(
    Array.from({ length: n }, () => {
      const dir = tempDir("pb-replica-");
      mkdirSync(dir, { recursive: true });
      const { file } = writeConfig(
        {
          defaults: { timeout_ms: 10_000, health_interval_ms: 60_000 },
          mcpConnectors: { [instance]: { plugin: "fx-mcp-watch", config: { dir: watched } } },
          gateway: {
            expose: { [`mcpConnectors/${instance}`]: true },
            state: { postgres: "${PG_URL}" },
            clients: { other: { token: "${OTHER_TOKEN}", expose: { [`mcpConnectors/${instance}`]: true } } },
          },
        },
        dir,
      );
      return startHttpServe(file, { PATCHBAY_TOKEN: TOKEN, OTHER_TOKEN, PG_URL: pgUrl });
    }),
  );
  return { replicas, watched: path.resolve(watched) };
}

const headers = (session: string | null, token = TOKEN): Record<string, string> => ({
  Authorization: `Bearer ${token}`,
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": VERSION,
  ...(session ? { "mcp-session-id": session } : {}),
});

export interface Reply {
  status: number;
  session: string | null;
  retryAfter: string | null;
  body: { result?: { tools?: { name: string }[] }; error?: { code: unknown; message?: string } } | null;
}

/** One JSON-RPC POST to a replica; the reply's status, session and Retry-After headers, and body. */
export async function post(r: HttpServe, session: string | null, body: unknown, token = TOKEN): Promise<Reply> {
  const res = await fetch(r.url, { method: "POST", headers: headers(session, token), body: JSON.stringify(body) });
  const text = await res.text();
  return {
    status: res.status,
    session: res.headers.get("mcp-session-id"),
    retryAfter: res.headers.get("retry-after"),
    body: text ? JSON.parse(text) : null,
  };
}

/** initialize + initialized on `r`; the new session's id. */
export async function initialize(r: HttpServe, token = TOKEN): Promise<string> {
  const init = await post(
    r,
    null,
    {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: "shared-test", version: "1" } },
    },
    token,
  );
  if (init.status !== 200 || !init.session) throw new Error(`initialize: ${init.status} ${JSON.stringify(init.body)}`);
  await post(r, init.session, { jsonrpc: "2.0", method: "notifications/initialized" }, token);
  return init.session;
}

export interface SseEvent {
  id: string | null;
  retry: string | null;
  data: string;
}

/** A GET stream on `r`; its events as they arrive. */
export async function openStream(
  r: HttpServe,
  session: string,
  lastEventId?: string,
  token = TOKEN,
): Promise<{
  status: number;
  events: SseEvent[];
  next(match: (e: SseEvent) => boolean): Promise<SseEvent>;
  close(): void;
}> {
  const ac = new AbortController();
  const res = await fetch(r.url, {
    headers: {
      ...headers(session, token),
      accept: "text/event-stream",
      ...(lastEventId !== undefined ? { "last-event-id": lastEventId } : {}),
    },
    signal: ac.signal,
  });
  const events: SseEvent[] = [];
  const waiters: { match: (e: SseEvent) => boolean; resolve: (e: SseEvent) => void }[] = [];
  const see = (e: SseEvent) => {
    events.push(e);
    for (const w of [...waiters]) if (w.match(e)) waiters.splice(waiters.indexOf(w), 1), w.resolve(e);
  };
  if (res.ok && res.body)
    void (async () => {
      let buf = "";
      const decoder = new TextDecoder();
      try {
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
          buf += decoder.decode(chunk, { stream: true });
          for (let at = buf.indexOf("\n\n"); at >= 0; at = buf.indexOf("\n\n")) {
            const block = buf.slice(0, at);
            buf = buf.slice(at + 2);
            if (block.startsWith(":")) continue;
            const field = (name: string) =>
              block
                .split("\n")
                .find((l) => l.startsWith(`${name}:`))
                ?.slice(name.length + 1)
                .trim() ?? null;
            see({ id: field("id"), retry: field("retry"), data: field("data") ?? "" });
          }
        }
      } catch {
        // Closed by the test (or the replica died).
      }
    })();
  return {
    status: res.status,
    events,
    next: (match) => {
      const seen = events.find(match);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`no matching event; got ${JSON.stringify(events)}`)), 15_000);
        waiters.push({ match, resolve: (e) => (clearTimeout(t), resolve(e)) });
      });
    },
    close: () => ac.abort(),
  };
}

/** An event carrying a notifications/resources/updated for `uri`. */
export const updatedFor =
  (uri: string) =>
  (e: SseEvent): boolean =>
    e.data.includes('"notifications/resources/updated"') && e.data.includes(JSON.stringify(uri));

/** Resolves once `check` resolves true (asked again every 100 ms); the bound only turns a hang into a failure. */
export async function eventually(check: () => Promise<boolean>, boundMs = 10_000): Promise<void> {
  const deadline = Date.now() + boundMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`did not hold within ${boundMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
