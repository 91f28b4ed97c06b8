/**
 * One replica's copy of a shared session: an SDK server for the session's caller and a transport
 * whose notifications go to gateway.state (the session's event store) rather than to a stream of
 * this process, since the client's GET stream may be held by another replica; and the client's GET
 * stream when this replica holds it.
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
