/**
 * The rate cap on one worker's resource updates (resource-updated messages): at most
 * RESOURCE_UPDATES_PER_WINDOW per window pass on; the rest are dropped in O(1), counted, and told
 * in the instance's log (once when dropping starts, then the window's count when the next one
 * opens). A real server's updates are hints to re-read a resource, so a burst above this loses
 * nothing a client cannot recover by reading.
 */
import type { WorkerToHost } from "../contract/rpc.js";

const RESOURCE_UPDATES_PER_WINDOW = 100;
const RESOURCE_UPDATE_WINDOW_MS = 1_000;

type ResourceUpdated = WorkerToHost & { t: "resource-updated" };

export class ResourceUpdateCap {
  /** Updates dropped over the channel's life. */
  droppedTotal = 0;
  private windowStart = 0;
  private inWindow = 0;
  private dropped = 0;

  /** Where passed updates and the cap's log lines go (the instance's onMessage). */
  constructor(private readonly onMessage: (msg: WorkerToHost) => void) {}

  /** Passes `msg` on, or drops it when the window is full. */
  offer(msg: ResourceUpdated): void {
    const now = Date.now();
    if (now - this.windowStart >= RESOURCE_UPDATE_WINDOW_MS) {
      if (this.dropped > 0)
        this.onMessage({
          t: "log",
          level: "warn",
          msg: `${this.dropped} resource updates dropped: over ${RESOURCE_UPDATES_PER_WINDOW} per ${RESOURCE_UPDATE_WINDOW_MS} ms`,
          data: { dropped: this.dropped },
        });
      this.windowStart = now;
      this.inWindow = 0;
      this.dropped = 0;
    }
    if (++this.inWindow > RESOURCE_UPDATES_PER_WINDOW) {
      this.droppedTotal++;
      if (this.dropped++ === 0)
        this.onMessage({
          t: "log",
          level: "warn",
          msg: `dropping resource updates: over ${RESOURCE_UPDATES_PER_WINDOW} per ${RESOURCE_UPDATE_WINDOW_MS} ms`,
        });
      return;
    }
    this.onMessage(msg);
  }
}
