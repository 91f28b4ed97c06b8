/**
 * One shared session's notifications as the MCP SDK's EventStore: stored in PostgreSQL
 * (store.ts), numbered per session, so any replica can replay them to a client that resumes
 * its GET stream with Last-Event-ID. An event id is the notification's number in its session,
 * and a replay reads only the session of the request that asked: an id names nothing of another
 * session, whatever a client puts in the header.
 */
import type { EventStore } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { SessionStore } from "./store.js";

/** The SDK's name for the GET stream: a session has one stream of its own notifications. */
export const GET_STREAM = "_GET_stream";

export class SessionEventStore implements EventStore {
  constructor(
    private readonly store: SessionStore,
    private readonly session: string,
  ) {}

  /** Appends `message` to the session's notifications; its event id ("" when the session is gone). */
  async storeEvent(_streamId: string, message: JSONRPCMessage): Promise<string> {
    const seq = await this.store.append(this.session, JSON.stringify(message));
    return seq === null ? "" : String(seq);
  }

  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return eventSeq(eventId) === null ? undefined : GET_STREAM;
  }

  async replayEventsAfter(
    lastEventId: string,
    { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<string> {
    const after = eventSeq(lastEventId);
    if (after === null) return GET_STREAM;
    for (const e of await this.store.eventsAfter(this.session, after))
      await send(String(e.seq), JSON.parse(e.message) as JSONRPCMessage);
    return GET_STREAM;
  }
}

/** The notification number an event id names, or null for anything that is not one. */
export function eventSeq(eventId: string): number | null {
  return /^\d{1,15}$/.test(eventId) ? Number(eventId) : null;
}
