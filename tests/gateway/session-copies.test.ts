/**
 * Which session copies a replica keeps (src/gateway/shared-sessions/copy.ts): the choice itself, on
 * copies reduced to what it reads. Whole replicas making and dropping real copies are in
 * shared-sessions.test.ts; the moments this guards (a copy between its build and its first
 * request) are too short to hit from outside on purpose.
 */
import { describe, expect, it } from "vitest";
import {
  MAX_COPIES,
  makeRoom,
  roomForOneMore,
  type SharedCopy,
  SessionsBusy,
} from "../../src/gateway/shared-sessions/copy.js";

type Busy = "open" | "stream" | "held" | "idle";

function copies(kinds: Busy[], lastSeen: (i: number) => number) {
  const closed: string[] = [];
  const map = new Map<string, SharedCopy>();
  kinds.forEach((kind, i) => {
    const id = `s${i}`;
    const copy = {
      id,
      open: kind === "open" ? 1 : 0,
      stream: kind === "stream" ? {} : null,
      held: new Set(kind === "held" ? ["mcpConnectors/w\nwatch://k"] : []),
      lastSeen: lastSeen(i),
      transport: {
        close: async () => {
          closed.push(id);
          map.delete(id);
        },
      },
    };
    map.set(id, copy as unknown as SharedCopy);
  });
  return { map, closed };
}

const old = () => Date.now() - 60_000;
const cycle = (n: number): Busy[] => Array.from({ length: n }, (_, i) => (["open", "stream", "held"] as const)[i % 3]);

describe("the session copies one replica keeps", () => {
  it("refuses one more only when MAX_COPIES of them hold a request, a GET stream or a subscription", () => {
    expect(() => roomForOneMore(copies([...cycle(MAX_COPIES - 1), "idle", "idle"], old).map)).not.toThrow();
    expect(() => roomForOneMore(copies(cycle(MAX_COPIES), old).map)).toThrow(SessionsBusy);
  });

  it("closes the least recently used of those holding nothing, down to MAX_COPIES, and never a busy one", () => {
    // Oldest first: two idle, then busy ones, then idle ones, 6 past the bound.
    const kinds: Busy[] = ["idle", "idle", ...cycle(MAX_COPIES - 2), "idle", "idle", "idle", "idle", "idle", "idle"];
    const { map, closed } = copies(kinds, old);
    expect(makeRoom(map)).toBe(6);
    expect(closed).toEqual([
      "s0",
      "s1",
      `s${MAX_COPIES}`,
      `s${MAX_COPIES + 1}`,
      `s${MAX_COPIES + 2}`,
      `s${MAX_COPIES + 3}`,
    ]);
  });

  it("never closes a copy built or used in the last second, even when it is the only one holding nothing", () => {
    // Every older copy busy, the newest just built for a request not inside it yet: it is kept, over
    // the bound for now, rather than closed under that request.
    const kinds: Busy[] = [...cycle(MAX_COPIES), "idle"];
    const { map, closed } = copies(kinds, (i) => (i === MAX_COPIES ? Date.now() : old()));
    expect(makeRoom(map)).toBe(0);
    expect(closed).toEqual([]);
    expect(map.size).toBe(MAX_COPIES + 1);
    // A second later it is fair game like any idle copy.
    map.get(`s${MAX_COPIES}`)!.lastSeen = Date.now() - 1_001;
    expect(makeRoom(map)).toBe(1);
    expect(closed).toEqual([`s${MAX_COPIES}`]);
  });
});
