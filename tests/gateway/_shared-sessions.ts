/**
 * Raw Streamable HTTP for the shared-sessions tests: a request sent to one replica's own port with
 * a session id another replica issued, and a GET stream read event by event, so each assertion
 * sees the exact status, headers and SSE fields a replica answered (an SDK client would retry,
 * reconnect or hide them).
 */
export const PROTOCOL = "2025-11-25";

export interface SseEvent {
  id?: string;
  event?: string;
  data: string;
  retry?: number;
}

export interface Reply {
  status: number;
  sessionId: string | null;
  /** The JSON-RPC messages of the body, whether it came as JSON or as an event stream. */
  messages: Record<string, unknown>[];
  text: string;
}

const headers = (token: string, sessionId?: string, extra: Record<string, string> = {}) => ({
  Authorization: `Bearer ${token}`,
  Accept: "application/json, text/event-stream",
  "Content-Type": "application/json",
  ...(sessionId ? { "Mcp-Session-Id": sessionId, "Mcp-Protocol-Version": PROTOCOL } : {}),
  ...extra,
});

/** The complete events in `buffer` and what is left of it (an event ends at a blank line). */
function parseEvents(buffer: string): { events: SseEvent[]; rest: string } {
  const blocks = buffer.replace(/\r\n/g, "\n").split("\n\n");
  const rest = blocks.pop() ?? "";
  const events = blocks.map((block) => {
    const ev: SseEvent = { data: "" };
    const data: string[] = [];
    for (const line of block.split("\n")) {
      if (line.startsWith(":")) continue;
      const [field, ...v] = line.split(":");
      const value = v.join(":").replace(/^ /, "");
      if (field === "data") data.push(value);
      else if (field === "id") ev.id = value;
      else if (field === "event") ev.event = value;
      else if (field === "retry") ev.retry = Number(value);
    }
    ev.data = data.join("\n");
    return ev;
  });
  return { events: events.filter((e) => e.data !== "" || e.id !== undefined || e.retry !== undefined), rest };
}

export async function request(
  base: string,
  token: string,
  method: "POST" | "DELETE",
  body?: unknown,
  sessionId?: string,
): Promise<Reply> {
  const res = await fetch(`${base}/mcp`, {
    method,
    headers: headers(token, sessionId),
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  const type = res.headers.get("content-type") ?? "";
  let messages: Record<string, unknown>[] = [];
  if (type.includes("text/event-stream"))
    messages = parseEvents(`${text}\n\n`)
      .events.filter((e) => e.data)
      .map((e) => JSON.parse(e.data));
  else if (type.includes("application/json") && text) messages = [JSON.parse(text)].flat();
  return { status: res.status, sessionId: res.headers.get("mcp-session-id"), messages, text };
}

let nextId = 1;
export const rpc = (method: string, params: Record<string, unknown> = {}) => ({
  jsonrpc: "2.0",
  id: nextId++,
  method,
  params,
});

/** initialize + notifications/initialized on `base`; the session id the replica issued. */
export async function openSession(base: string, token: string): Promise<string> {
  const init = await request(
    base,
    token,
    "POST",
    rpc("initialize", { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: "raw", version: "1" } }),
  );
  if (init.status !== 200 || !init.sessionId) throw new Error(`initialize: HTTP ${init.status} ${init.text}`);
  const done = await request(
    base,
    token,
    "POST",
    { jsonrpc: "2.0", method: "notifications/initialized" },
    init.sessionId,
  );
  if (done.status !== 202) throw new Error(`notifications/initialized: HTTP ${done.status} ${done.text}`);
  return init.sessionId;
}

export interface Stream {
  status: number;
  text: string;
  /** The next event, or null if none came within `ms`. */
  next(ms: number): Promise<SseEvent | null>;
  close(): void;
}

/** `GET /mcp` of a session on `base`, optionally resuming after `lastEventId`. */
export async function openStream(
  base: string,
  token: string,
  sessionId: string,
  lastEventId?: string,
): Promise<Stream> {
  const abort = new AbortController();
  const res = await fetch(`${base}/mcp`, {
    method: "GET",
    headers: headers(token, sessionId, {
      Accept: "text/event-stream",
      ...(lastEventId ? { "Last-Event-ID": lastEventId } : {}),
    }),
    signal: abort.signal,
  });
  if (!res.ok || !res.body) {
    const text = await res.text();
    return { status: res.status, text, next: async () => null, close: () => abort.abort() };
  }
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  const queue: SseEvent[] = [];
  let buffer = "";
  // A read still pending when the stream is closed rejects: taken as the end, never left unhandled.
  let pending: Promise<{ done: boolean; value?: string }> | null = null;
  return {
    status: res.status,
    text: "",
    async next(ms) {
      const deadline = Date.now() + ms;
      while (queue.length === 0) {
        const left = deadline - Date.now();
        if (left <= 0) return null;
        pending ??= reader.read().catch(() => ({ done: true }));
        let timer: NodeJS.Timeout | undefined;
        const timeout = new Promise<"timeout">((r) => (timer = setTimeout(() => r("timeout"), left)));
        const got = await Promise.race([pending, timeout]).finally(() => clearTimeout(timer));
        if (got === "timeout") return null;
        pending = null;
        if (got.done) return null;
        const parsed = parseEvents(buffer + (got.value ?? ""));
        buffer = parsed.rest;
        queue.push(...parsed.events);
      }
      return queue.shift()!;
    },
    close: () => abort.abort(),
  };
}

/** Events of `stream` until one passes `pick` (returned) or `ms` pass (null). */
export async function until(stream: Stream, pick: (e: SseEvent) => boolean, ms: number): Promise<SseEvent | null> {
  const deadline = Date.now() + ms;
  for (;;) {
    const e = await stream.next(Math.max(0, deadline - Date.now()));
    if (!e) return null;
    if (pick(e)) return e;
  }
}

export const updatedFor = (uri: string) => (e: SseEvent) =>
  e.data !== "" &&
  (JSON.parse(e.data) as { method?: string; params?: { uri?: string } }).method === "notifications/resources/updated" &&
  (JSON.parse(e.data) as { params?: { uri?: string } }).params?.uri === uri;
