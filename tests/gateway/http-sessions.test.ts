/**
 * The session table's use order: the idle session used longest ago gives way first, also when a
 * client's requests come in a row (the newest session is not moved again) and after the newest
 * one was deleted.
 */
import { describe, expect, it } from "vitest";
import type { SessionTransport } from "../../src/gateway/http-session-transport.js";
import { SessionTable } from "../../src/gateway/http-sessions.js";

function table(max: number) {
  const closed: string[] = [];
  const t = new SessionTable(max);
  const add = (id: string) => t.add(id, { close: async () => void closed.push(id) } as unknown as SessionTransport);
  return { t, add, closed };
}

describe("SessionTable", () => {
  it("evicts the idle session used longest ago", async () => {
    const { t, add, closed } = table(3);
    for (const id of ["a", "b", "c"]) add(id);
    t.enter("a")();
    t.enter("a")();
    t.enter("b")();
    (await t.makeRoom())?.();
    expect(closed).toEqual(["c"]);
    await t.close();
  });

  it("keeps the order right when the newest session was deleted and others are touched", async () => {
    const { t, add, closed } = table(3);
    for (const id of ["a", "b", "c"]) add(id);
    t.delete("c");
    add("d");
    t.enter("a")();
    t.delete("a");
    t.enter("b")();
    add("e");
    (await t.makeRoom())?.();
    expect(closed).toEqual(["d"]);
    t.enter("e")();
    t.enter("b")();
    add("f");
    (await t.makeRoom())?.();
    expect(closed).toEqual(["d", "e"]);
    await t.close();
  });
});
