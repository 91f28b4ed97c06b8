/**
 * One replica's copy of a shared session: an SDK server for the session's caller and a transport
 * whose notifications go to gateway.state (the session's event store) rather than to a stream of
 * this process, since the client's GET stream may be held by another replica.
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Caller } from "../clients/caller.js";
import type { Gateway } from "../gateway.js";
import { MAX_BODY } from "../http-replies.js";
import { SessionTransport } from "../http-session-transport.js";
import { GET_STREAM, SessionEventStore } from "./event-store.js";
import type { SessionRecord, SessionStore } from "./store.js";
import type { SessionStream } from "./stream.js";

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
