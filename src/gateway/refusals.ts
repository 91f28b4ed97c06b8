/**
 * The last refusals a gateway answered, for the status page: HTTP requests it refused (a missing
 * token, a foreign Host, an unknown path, a body too large) and tool calls that ended in a
 * Patchbay error code (a tool denied, arguments refused, a timeout). A fixed ring: a flood of bad
 * requests costs the same memory as one. What a client sent (a tool name) is clipped here and
 * escaped where it is shown.
 */
const KEEP = 20;
const MAX_CHARS = 120;

export interface Refusal {
  at: number;
  what: string;
  code: string;
}

export class RecentRefusals {
  private readonly ring: Refusal[] = [];

  note(what: string, code: string): void {
    if (this.ring.length >= KEEP) this.ring.shift();
    this.ring.push({ at: Date.now(), what: what.slice(0, MAX_CHARS), code: code.slice(0, MAX_CHARS) });
  }

  /** Newest first. */
  list(): Refusal[] {
    return [...this.ring].reverse();
  }
}
