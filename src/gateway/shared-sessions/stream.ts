/**
 * A shared session's GET stream on this replica: server-sent events carrying the session's
 * notifications in order, each with its number as event id, whichever replica produced it.
 *
 * Written here rather than by the SDK transport, which keeps its stream and its numbering to the
 * one process: a notification reaches this stream from the channel (bus.ts), possibly out of
 * order or after a gap (a notification too long to ride along, a listener that reconnected), so
 * a push past the next number reads what is missing first. The stream starts with a priming
 * event (an id and no data, as the SDK writes for its own resumable streams, to clients of
 * protocol 2025-11-25 or later) so that a client whose stream breaks before any notification
 * still resumes from the right place on whichever replica it reconnects to.
 */
import type { ServerResponse } from "node:http";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { SessionEventStore } from "./event-store.js";
import type { SessionStore } from "./store.js";

function parseMessage(text: string): JSONRPCMessage | null {
  try {
    return JSON.parse(text) as JSONRPCMessage;
  } catch {
    return null;
  }
}

/** Comments on a quiet stream keep balancers and proxies from closing it as idle. */
const KEEPALIVE_MS = 15_000;
/** How soon a client reconnects a broken stream (the SSE `retry` field). */
const RETRY_MS = 500;
const PRIMING_FROM = "2025-11-25";

export class SessionStream {
  private delivered: number;
  private chain: Promise<void> = Promise.resolve();
  private readonly keepalive: NodeJS.Timeout;
  private ended = false;

  private constructor(
    private readonly res: ServerResponse,
    private readonly events: SessionEventStore,
    from: number,
    /** Drops a notification the client must not get (below its log level). */
    private readonly wanted: (message: JSONRPCMessage) => boolean,
  ) {
    this.delivered = from;
    this.keepalive = setInterval(() => this.write(": keepalive\n\n"), KEEPALIVE_MS);
    this.keepalive.unref();
  }

  /**
   * Opens the stream on `res`: from `lastEventId` when the client resumes (what it missed is
   * replayed first), else from the session's newest notification.
   */
  static async open(opts: {
    res: ServerResponse;
    session: string;
    store: SessionStore;
    events: SessionEventStore;
    protocolVersion: string;
    lastEventId: number | null;
    wanted: (message: JSONRPCMessage) => boolean;
    onClose: () => void;
  }): Promise<SessionStream | null> {
    const newest = await opts.store.lastSeq(opts.session);
    if (newest === null) return null;
    const from = opts.lastEventId === null ? newest : Math.min(opts.lastEventId, newest);
    opts.res.writeHead(200, {
      "content-type": "text/event-stream",
      "cache-control": "no-cache, no-transform",
      connection: "keep-alive",
      "x-accel-buffering": "no",
      "mcp-session-id": opts.session,
    });
    const stream = new SessionStream(opts.res, opts.events, from, opts.wanted);
    opts.res.once("close", () => {
      stream.end();
      opts.onClose();
    });
    if (opts.protocolVersion >= PRIMING_FROM) stream.write(`id: ${from}\nretry: ${RETRY_MS}\ndata: \n\n`);
    else opts.res.flushHeaders();
    if (from < newest) stream.catchUp();
    return stream;
  }

  /** A notification of this session numbered `seq` (its message, or null: read it from the store). */
  push(seq: number, message: string | null): void {
    if (this.ended || seq <= this.delivered) return;
    // The next in order is sent at once; past a gap, what is missing is read first (catchUp sends
    // only what is past the last sent, so a push that overtakes a read is not sent twice).
    if (seq === this.delivered + 1 && message !== null) this.send(seq, parseMessage(message));
    else this.catchUp();
  }

  /** Reads and sends every notification after the last one sent (the channel may have skipped some). */
  catchUp(): void {
    this.chain = this.chain.then(async () => {
      if (this.ended) return;
      await this.events
        .replayEventsAfter(String(this.delivered), {
          send: async (id, message) => {
            if (Number(id) > this.delivered) this.send(Number(id), message);
          },
        })
        .catch(() => undefined);
    });
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    clearInterval(this.keepalive);
    if (!this.res.writableEnded) this.res.end();
  }

  /** Sends notification `seq`; one the client does not want (or that does not parse) is passed over. */
  private send(seq: number, message: JSONRPCMessage | null): void {
    this.delivered = seq;
    if (message === null || !this.wanted(message)) return;
    this.write(`event: message\nid: ${seq}\ndata: ${JSON.stringify(message)}\n\n`);
  }

  private write(text: string): void {
    if (!this.ended && !this.res.writableEnded) this.res.write(text);
  }
}
