/**
 * The SDK's ReadBuffer (shared/stdio.js) rules for what a stdio server writes, with each line
 * checked by parseMessage (fast-shapes.ts): a line ends at \n and a \r before it is dropped; more
 * than 10 MiB waiting (complete lines not yet read included) empties the buffer and throws the
 * SDK's words, which connection.ts reports.
 *
 * Why not the SDK's framing: it concatenates everything buffered on every chunk, so a line of n
 * chunks copies ~n²/2 chunks. A 9 MB result arrives in ~140 pipe reads of 64 KiB: ~0.6 GB copied,
 * 0.6 to 2.3 s of CPU on this 2-core machine against ~0.1 s here, and with "isolation": "host" that
 * is the gateway's own thread a server can stall. Here a chunk without a line end is only kept, and
 * a line's chunks are joined once, when its end arrives (bytes, so a UTF-8 character split between
 * two reads decodes whole).
 */
import { STDIO_DEFAULT_MAX_BUFFER_SIZE } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { parseMessage } from "./fast-shapes.js";

const NEWLINE = 10;

export class LineBuffer {
  /** What arrived and was not read yet, in order. */
  private chunks: Buffer[] = [];
  /** How many leading chunks are known to hold no line end (so each byte is searched once). */
  private searched = 0;
  private bytes = 0;

  constructor(private readonly maxBytes = STDIO_DEFAULT_MAX_BUFFER_SIZE) {}

  append(chunk: Buffer): void {
    if (this.bytes + chunk.length > this.maxBytes) {
      this.clear();
      throw new Error(`ReadBuffer exceeded maximum size of ${this.maxBytes} bytes`);
    }
    if (chunk.length === 0) return;
    this.chunks.push(chunk);
    this.bytes += chunk.length;
  }

  /** The next complete line's message, or null when no line is complete; throws for a line that is not one. */
  readMessage(): JSONRPCMessage | null {
    for (let i = this.searched; i < this.chunks.length; i++) {
      const end = this.chunks[i].indexOf(NEWLINE);
      if (end === -1) {
        this.searched = i + 1;
        continue;
      }
      const line = this.take(i, end);
      return parseMessage(line.endsWith("\r") ? line.slice(0, -1) : line);
    }
    return null;
  }

  clear(): void {
    this.chunks = [];
    this.searched = 0;
    this.bytes = 0;
  }

  /** Removes the line that ends at byte `end` of chunk `i` (and its \n) and returns its text. */
  private take(i: number, end: number): string {
    const last = this.chunks[i];
    const text =
      i === 0
        ? last.toString("utf8", 0, end)
        : Buffer.concat([...this.chunks.slice(0, i), last.subarray(0, end)]).toString("utf8");
    let length = end + 1;
    for (let k = 0; k < i; k++) length += this.chunks[k].length;
    this.bytes -= length;
    const rest = this.chunks.slice(i + 1);
    if (end + 1 < last.length) rest.unshift(last.subarray(end + 1));
    this.chunks = rest;
    this.searched = 0;
    return text;
  }
}
