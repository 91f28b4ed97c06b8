/**
 * The channel between the host and a process- or sandbox-isolated child: a socket pair on the
 * child's fd 3, carrying frames of a 4-byte big-endian length and that many bytes of
 * v8.serialize (structured clone, what Node's IPC with `serialization: "advanced"` sends: Maps,
 * Dates and undefined survive, and a value it cannot carry throws at send time).
 *
 * Why not Node's IPC channel: its reader trusts the child. A child (any plugin, by writing to the
 * channel's descriptor) could crash the host with twelve bytes: a length with the top bit set is
 * read as negative, the frame is taken as complete, and the deserializer's throw is uncaught in
 * the host's event loop. It also holds a frame of any length up to 4 GiB until it is whole. Here
 * every frame is bounded, its length read unsigned, and a bad frame is the child's fault: the
 * reader stops and says why, and the host ends the child (spawn/process-runtime.ts).
 *
 * A leaf (node built-ins only): the child's entry imports it before anything else.
 */
import { deserialize, serialize } from "node:v8";

/** The largest message either side reads (a result over the RPC's own bounds is refused anyway). */
export const MAX_FRAME_BYTES = 64 * 1024 * 1024;

const HEADER = 4;

/** One message as a frame; throws, as postMessage does, when structured clone cannot carry it. */
export function encodeFrame(msg: unknown): Buffer {
  const body = serialize(msg);
  const frame = Buffer.allocUnsafe(HEADER + body.length);
  frame.writeUInt32BE(body.length, 0);
  body.copy(frame, HEADER);
  return frame;
}

/** Reads frames from the chunks of a stream, in order; the first bad frame ends the reading. */
export class FrameReader {
  private chunks: Buffer[] = [];
  private bytes = 0;
  /** The frame being read: its body length, once its header is in. */
  private need = -1;
  private stopped = false;

  constructor(
    private readonly onMessage: (msg: unknown) => void,
    /** Called once, with what was wrong; nothing is read after it. */
    private readonly onViolation: (why: string) => void,
    private readonly maxBytes = MAX_FRAME_BYTES,
  ) {}

  push(chunk: Buffer): void {
    if (this.stopped || chunk.length === 0) return;
    this.chunks.push(chunk);
    this.bytes += chunk.length;
    for (;;) {
      if (this.need < 0) {
        if (this.bytes < HEADER) return;
        this.need = this.take(HEADER).readUInt32BE(0);
        if (this.need > this.maxBytes)
          return this.stop(`a message of ${this.need} bytes, over the ${this.maxBytes / 2 ** 20} MiB the host reads`);
      }
      if (this.bytes < this.need) return;
      const body = this.take(this.need);
      this.need = -1;
      let msg: unknown;
      try {
        msg = deserialize(body);
      } catch (err) {
        return this.stop(`a message that is not structured-clone data (${(err as Error).message})`);
      }
      this.onMessage(msg);
      if (this.stopped) return;
    }
  }

  /** Stops reading (the stream is closing); nothing more is delivered. */
  stop(why?: string): void {
    if (this.stopped) return;
    this.stopped = true;
    this.chunks = [];
    this.bytes = 0;
    if (why) this.onViolation(why);
  }

  /** Removes the first `n` buffered bytes (n ≤ this.bytes) and returns them as one buffer. */
  private take(n: number): Buffer {
    if (n === 0) return Buffer.alloc(0);
    const first = this.chunks[0];
    if (first.length >= n) {
      if (first.length === n) this.chunks.shift();
      else this.chunks[0] = first.subarray(n);
      this.bytes -= n;
      return first.subarray(0, n);
    }
    const out = Buffer.allocUnsafe(n);
    let filled = 0;
    while (filled < n) {
      const c = this.chunks[0];
      const part = Math.min(c.length, n - filled);
      c.copy(out, filled, 0, part);
      filled += part;
      if (part === c.length) this.chunks.shift();
      else this.chunks[0] = c.subarray(part);
    }
    this.bytes -= n;
    return out;
  }
}
