/**
 * The head start's line reader (stdio-front.ts), by the rules of the gateway's own (stdio-lane.ts):
 * bytes kept as they came, so a UTF-8 character split between two reads decodes whole; only each
 * new chunk searched for the line end, so a line in many pieces costs its length once, not its
 * length times its pieces; and the same bound on a line, past which the connection ends as the
 * gateway would end it. Node built-ins only: it runs before the CLI has loaded.
 */

/** A client line longer than this ends its connection (the gateway's stdio transport, serve.ts, uses it too). */
export const STDIO_MAX_LINE = 64 * 1024 * 1024;

const NEWLINE = 10;

export class FrontLines {
  private held: Buffer[] = [];
  private heldBytes = 0;
  /** A line went over the bound: nothing more is read, and the connection ends at the handover. */
  overflowed = false;

  /** `onLine` gets each complete line, its \n (and a \r before it) taken off. */
  constructor(
    private readonly onLine: (line: string) => void,
    private readonly maxBytes = STDIO_MAX_LINE,
  ) {}

  push(chunk: Buffer): void {
    if (this.overflowed) return;
    let from = 0;
    for (let nl = chunk.indexOf(NEWLINE); nl >= 0; nl = chunk.indexOf(NEWLINE, from)) {
      if (this.heldBytes + nl - from > this.maxBytes) return this.overflow();
      const bytes = this.held.length === 0 ? chunk.subarray(from, nl) : this.join(chunk.subarray(from, nl));
      from = nl + 1;
      const line = bytes.toString("utf8");
      this.onLine(line.endsWith("\r") ? line.slice(0, -1) : line);
      if (this.overflowed) return;
    }
    if (from === chunk.length) return;
    if (this.heldBytes + chunk.length - from > this.maxBytes) return this.overflow();
    this.held.push(from === 0 ? chunk : chunk.subarray(from));
    this.heldBytes += chunk.length - from;
  }

  /** The start of a line not ended yet, as bytes, for whoever reads on (empty when there is none). */
  rest(): Buffer {
    return this.join(Buffer.alloc(0));
  }

  private join(last: Buffer): Buffer {
    const bytes = Buffer.concat([...this.held, last]);
    this.held = [];
    this.heldBytes = 0;
    return bytes;
  }

  private overflow(): void {
    this.overflowed = true;
    this.held = [];
    this.heldBytes = 0;
  }
}
