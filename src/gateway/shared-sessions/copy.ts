/**
 * One replica's copy of a shared session: an SDK server for the session's caller and a transport
 * whose notifications go to gateway.state (the session's event store) rather than to a stream of
 * this process, since the client's GET stream may be held by another replica; and the client's GET
 * stream when this replica holds it. Also how many copies a replica keeps, and which it drops.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";
import type { Caller } from "../clients/caller.js";
import type { Gateway } from "../gateway.js";
import { MAX_BODY } from "../http-replies.js";
import { SessionTransport } from "../http-session-transport.js";
import { eventSeq, GET_STREAM, SessionEventStore } from "./event-store.js";
import type { SessionRecord, SessionStore } from "./store.js";
import { SessionStream } from "./stream.js";

/**
 * Local copies kept at most; beyond, the least recently used that holds nothing is dropped. When
 * this many hold something (a request, a GET stream, a subscription), a session that would need
 * one more is refused with SessionsBusy: clients that keep streams or subscriptions open in a loop
 * cannot grow a replica's memory without bound.
 */
export const MAX_COPIES = 256;
/**
 * A copy built or used this recently is never the one dropped: it may be on its way to the request
 * it was made or found for (between an await's end and that request entering it), and dropping it
 * there would close the session's transport under its own first request, which then fails and ends
 * the session. With every older copy holding something (256 clients each keeping a GET stream), the
 * newest copy would otherwise be the only one left to drop.
 */
const SETTLE_MS = 1_000;
/** Every copy this replica may keep holds something: the request is refused (503), to be retried. */
export class SessionsBusy extends Error {
  constructor() {
    super(`every one of this replica's ${MAX_COPIES} session copies holds a request, stream or subscription`);
  }
}

const holds = (c: SharedCopy): boolean => c.open > 0 || c.stream !== null || c.held.size > 0;

export interface SharedCopy {
  id: string;
  record: SessionRecord;
  server: Server;
  transport: SessionTransport;
  events: SessionEventStore;
  stream: SessionStream | null;
  /** Requests of the session this replica is answering now. */
  open: number;
  /** Subscriptions this replica holds for it on its instances ("instance\nuri"). */
  held: Set<string>;
  lastSeen: number;
}

/** A copy of the session `record` for `caller`, not connected yet (its owner sets onclose first). */
export function makeCopy(gateway: Gateway, store: SessionStore, record: SessionRecord, caller: Caller): SharedCopy {
  const id = record.id;
  const server = gateway.createServer({ caller, session: id });
  const events = new SessionEventStore(store, id);
  const transport = new SessionTransport(
    { sessionIdGenerator: () => id, enableJsonResponse: true, maxRequestBodySize: MAX_BODY },
    {
      toolCall: (params, extra) => gateway.callTool(params, extra, { caller, session: id }),
      notify: (notification, requestId) => server.notification(notification, { relatedRequestId: requestId }),
    },
    {
      id,
      publish: (message) => events.storeEvent(GET_STREAM, message),
      // Every replica's copy follows (the channel says so); a failure only leaves their filter looser.
      onLevel: (level) => void store.setLogLevel(id, level).catch(() => undefined),
    },
  );
  return { id, record, server, transport, events, stream: null, open: 0, held: new Set(), lastSeen: 0 };
}

/**
 * The client's GET stream on `copy`, replacing any it had here, resumed after its Last-Event-ID;
 * false when that header names no event of the session.
 */
export async function openCopyStream(
  copy: SharedCopy,
  store: SessionStore,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<boolean> {
  const header = req.headers["last-event-id"];
  const lastEventId = typeof header === "string" ? eventSeq(header) : null;
  if (typeof header === "string" && lastEventId === null) return false;
  copy.stream?.end();
  const asked = copy.record.init.protocolVersion;
  const stream = await SessionStream.open({
    res,
    session: copy.id,
    store,
    events: copy.events,
    protocolVersion: SUPPORTED_PROTOCOL_VERSIONS.includes(asked as string)
      ? (asked as string)
      : LATEST_PROTOCOL_VERSION,
    lastEventId,
    wanted: (m) => copy.transport.wanted(m),
    onClose: () => {
      if (copy.stream === stream) copy.stream = null;
    },
  });
  if (!stream) {
    await copy.transport.close();
    return false;
  }
  copy.stream = stream;
  return true;
}

/** Throws SessionsBusy when every copy that `copies` may keep holds something. */
export function roomForOneMore(copies: Map<string, SharedCopy>): void {
  let busy = 0;
  for (const c of copies.values()) if (holds(c)) busy++;
  if (busy >= MAX_COPIES) throw new SessionsBusy();
}

/**
 * Closes the least recently used copies (`copies` is kept in use order) that hold nothing and are
 * settled, down to MAX_COPIES; their sessions go on (a later request builds a copy again). The
 * number closed.
 */
export function makeRoom(copies: Map<string, SharedCopy>): number {
  const settled = Date.now() - SETTLE_MS;
  const excess = copies.size - MAX_COPIES;
  const dropped: SharedCopy[] = [];
  for (const c of copies.values()) {
    if (dropped.length >= excess) break;
    if (!holds(c) && c.lastSeen <= settled) dropped.push(c);
  }
  // Closed once chosen: a closing copy leaves `copies` (its onclose), which the loop must not see.
  for (const c of dropped) void c.transport.close().catch(() => undefined);
  return dropped.length;
}
