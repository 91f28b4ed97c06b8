/**
 * A call of an instance that announced changed lists waits until they are read again and held to
 * their pins (list-changes.ts). That read is scheduled after a settle; a rebuild of the catalog that
 * began after the announcement and has ended is the same check, so the call goes on then. Never
 * earlier: a rebuild that began before the announcement read the lists as they were. The settle's
 * timer is faked and never fires here: every release seen is one a rebuild gave.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Host } from "../../src/host/api.js";
import type { ListChange } from "../../src/host/types.js";
import { ListChangeWatch } from "../../src/gateway/list-changes.js";
import { seededRandom } from "../helpers.js";

function watch() {
  let emit!: (c: ListChange) => void;
  const host = {
    onListChanged(fn: (c: ListChange) => void) {
      emit = fn;
      return () => undefined;
    },
  } as unknown as Host;
  const rereads: Map<string, Set<ListChange["list"]>>[] = [];
  const w = new ListChangeWatch(host, async (lists) => void rereads.push(lists));
  const announce = (instance: string, list: ListChange["list"] = "tools") => emit({ instance, list });
  return { w, announce, rereads };
}

/** Whether `p` has settled, once the microtasks queued so far have run. */
async function settled(p: Promise<void>): Promise<boolean> {
  let done = false;
  void p.then(() => (done = true));
  for (let i = 0; i < 5; i++) await Promise.resolve();
  return done;
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
});
afterEach(() => {
  vi.useRealTimers();
});

describe("a call waiting for an instance's changed lists", () => {
  it("goes on when a rebuild begun after the announcement ends, not at the settled re-read", async () => {
    const { w, announce, rereads } = watch();
    expect(w.fresh("a")).toBeNull();
    announce("a");
    announce("a");
    const wait = w.fresh("a");
    expect(wait).not.toBeNull();
    const token = w.rebuilding();
    expect(await settled(wait!)).toBe(false);
    w.rebuilt(token);
    expect(await settled(wait!)).toBe(true);
    expect(w.fresh("a"), "checked: a later call does not wait").toBeNull();
    expect(rereads, "the scheduled re-read (which tells clients) is still to come").toHaveLength(0);
    w.close();
  });

  it("keeps waiting when the rebuild began before the announcement, or the instance announced again", async () => {
    const { w, announce } = watch();
    const early = w.rebuilding();
    announce("a");
    const wait = w.fresh("a")!;
    w.rebuilt(early);
    expect(await settled(wait)).toBe(false);
    const token = w.rebuilding();
    announce("a"); // during the rebuild: it may have read the lists before this change
    w.rebuilt(token);
    expect(await settled(wait)).toBe(false);
    expect(w.fresh("a")).not.toBeNull();
    w.rebuilt(w.rebuilding());
    expect(await settled(wait)).toBe(true);
    w.close();
  });

  it("in any order of announcements and rebuilds: released exactly when a rebuild begun after the instance's last announcement has ended", async () => {
    // Seeded: the same sequence on every run.
    const random = seededRandom(0x2f6e2b1);
    const rand = (n: number) => Math.floor(random() * n);
    for (let round = 0; round < 200; round++) {
      const { w, announce } = watch();
      const instances = ["a", "b", "c"];
      let count = 0;
      const last = new Map<string, number>();
      const open: number[] = [];
      let covered = 0;
      const waits: { instance: string; p: Promise<void>; released: boolean }[] = [];
      for (let step = 0; step < 30; step++) {
        const op = rand(4);
        const instance = instances[rand(instances.length)];
        if (op === 0) {
          announce(instance);
          last.set(instance, ++count);
        } else if (op === 1) open.push(w.rebuilding());
        else if (op === 2 && open.length > 0) {
          // Rebuilds run one at a time (catalog-keeper.ts): the oldest ends first.
          const token = open.shift()!;
          w.rebuilt(token);
          covered = Math.max(covered, token);
        } else {
          const p = w.fresh(instance);
          const checked = (last.get(instance) ?? 0) <= covered;
          expect(
            p === null,
            `fresh(${instance}) with its last announcement ${last.get(instance)}, covered ${covered}`,
          ).toBe(checked);
          if (p) waits.push({ instance, p, released: false });
        }
        for (const wait of waits) {
          if (wait.released) continue;
          const due = (last.get(wait.instance) ?? 0) <= covered;
          expect(await settled(wait.p), `waiting on ${wait.instance}`).toBe(due);
          wait.released = due;
        }
      }
      w.close();
    }
  });
});
