/**
 * The MCP client transport over a stdio server this plugin started (child-server.ts): the
 * SDK's line framing and message check (its ReadBuffer's rules and 10 MiB bound, line-buffer.ts;
 * its serializeMessage; each line checked as its deserializeMessage does, through fast-shapes.ts),
 * over a child process that may have been running since create(). Replaces the SDK's
 * StdioClientTransport, which can only spawn its own child, and late.
 *
 * close() ends the server for sure and quickly: STDIN_GRACE_MS to exit after its stdin closed
 * (the MCP spec's polite shutdown), then SIGTERM, then SIGKILL after TERM_GRACE_MS, well inside
 * the worker's close grace (2 s), so a server that ignores its stdin is never left behind.
 */
import type { ChildProcess } from "node:child_process";
import type { Readable } from "node:stream";
import { serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { type ChildServer, exited } from "./child-server.js";
import { DirectRequests } from "./direct-requests.js";
import { LineBuffer } from "./line-buffer.js";

const STDIN_GRACE_MS = 300;
const TERM_GRACE_MS = 500;

export class ChildTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private readonly proc: ChildProcess;
  private readonly readBuffer = new LineBuffer();
  private started = false;
  private closed = false;
  /** Requests written past the SDK Client (direct-requests.ts); their answers are taken before it sees them. */
  readonly direct: DirectRequests;

  /** `onKilled` hears a server that had to be killed (it ignored stdin closing and SIGTERM). */
  constructor(
    private readonly child: ChildServer,
    private readonly onKilled: (pid: number | undefined) => void,
  ) {
    this.proc = child.proc;
    const isOpen = () => !this.closed;
    this.direct = new DirectRequests({
      send: (message) => this.send(message),
      get open() {
        return isOpen();
      },
      error: (err) => this.onerror?.(err),
    });
  }

  /** The server's stderr, for the log (read it before start: nothing is lost, the pipe buffers). */
  get stderr(): Readable | null {
    return this.proc.stderr;
  }

  get pid(): number | undefined {
    return this.proc.pid;
  }

  async start(): Promise<void> {
    if (this.started) throw new Error("ChildTransport already started");
    this.started = true;
    await this.child.spawned;
    this.proc.on("error", (err) => this.onerror?.(err));
    this.proc.stdin?.on("error", (err) => this.onerror?.(err));
    this.proc.stdout?.on("error", (err) => this.onerror?.(err));
    this.proc.stdout?.on("data", (chunk: Buffer) => this.received(chunk));
    if (exited(this.proc)) return this.ended();
    this.proc.once("close", () => this.ended());
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.proc.stdin;
      if (!stdin || this.closed || exited(this.proc)) return reject(new Error("Not connected"));
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once("drain", resolve);
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const proc = this.proc;
    if (!exited(proc)) {
      try {
        proc.stdin?.end();
      } catch {
        // already closed
      }
      if (!(await waitExit(proc, STDIN_GRACE_MS))) {
        proc.kill("SIGTERM");
        if (!(await waitExit(proc, TERM_GRACE_MS))) {
          this.onKilled(proc.pid);
          proc.kill("SIGKILL");
          await waitExit(proc, TERM_GRACE_MS);
        }
      }
    }
    this.ended();
  }

  private received(chunk: Buffer): void {
    try {
      this.readBuffer.append(chunk);
    } catch (err) {
      // Over the SDK's 10 MiB line limit: the session is dropped (connection.ts says why).
      this.onerror?.(err as Error);
      void this.close();
      return;
    }
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.readBuffer.readMessage();
      } catch (err) {
        this.onerror?.(err as Error); // one bad line; the next may be fine
        continue;
      }
      if (message === null) return;
      if (this.direct.take(message)) continue;
      this.onmessage?.(message);
    }
  }

  private ended(): void {
    this.closed = true;
    const onclose = this.onclose;
    this.onclose = undefined; // exactly once, whether the child exited or close() ended it
    onclose?.();
    this.direct.closed();
  }
}

function waitExit(proc: ChildProcess, ms: number): Promise<boolean> {
  if (exited(proc)) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      proc.off("exit", onExit);
      resolve(exited(proc));
    }, ms);
    const onExit = (): void => {
      clearTimeout(timer);
      resolve(true);
    };
    proc.once("exit", onExit);
  });
}
