/**
 * The thread's side of a server the host's thread spawned for it (spawn/held-server.ts says why
 * and how): the host's ends of the server's stdio, asked for and handed over, as this thread's
 * sockets, and a stand-in for the ChildProcess mcp-remote would have had: the same streams, pid,
 * exitCode and signalCode, kill(), and "exit" then "close" as Node emits them. The exit is told by
 * the host's thread, which reaped it; a signal is asked of it.
 */
import { EventEmitter } from "node:events";
import { createRequire } from "node:module";
import type { Socket } from "node:net";
import type { HeldHandover } from "../contract/rpc.js";

/** node:net only when a server is held (every other thread's start stays as it was). */
const net = () => createRequire(import.meta.url)("node:net") as typeof import("node:net");

interface FromHost {
  t: "yours" | "gone" | "exit";
  code?: number | null;
  signal?: NodeJS.Signals | null;
}

export class HeldProcess extends EventEmitter {
  readonly pid: number;
  readonly stdin: Socket;
  readonly stdout: Socket;
  readonly stderr: Socket;
  exitCode: number | null = null;
  signalCode: NodeJS.Signals | null = null;
  /** "close" waits for the exit and for stdout and stderr to close, as a ChildProcess's does. */
  private closesNeeded = 3;

  /** The server, once the host has handed its descriptors over; null when it had released them (or its port closed). */
  static take(held: HeldHandover): Promise<HeldProcess | null> {
    return new Promise((resolve) => {
      let exit: FromHost | undefined;
      const settle = (proc: HeldProcess | null) => {
        held.port.off("message", onMessage);
        held.port.off("close", onClose);
        resolve(proc);
      };
      const onClose = () => settle(null);
      const onMessage = (msg: FromHost) => {
        if (msg.t === "exit")
          exit = msg; // the server ended before the hand-over: told at once after it
        else if (msg.t === "gone") {
          held.port.close();
          settle(null);
        } else if (msg.t === "yours") {
          const proc = new HeldProcess(held);
          settle(proc);
          if (exit) proc.exited(exit.code ?? null, exit.signal ?? null);
        }
      };
      held.port.on("message", onMessage);
      held.port.once("close", onClose);
      held.port.postMessage({ t: "take" });
    });
  }

  private constructor(private readonly held: HeldHandover) {
    super();
    this.pid = held.pid;
    const { Socket } = net();
    this.stdin = new Socket({ fd: held.stdin, readable: false, writable: true });
    this.stdout = new Socket({ fd: held.stdout, readable: true, writable: false });
    this.stderr = new Socket({ fd: held.stderr, readable: true, writable: false });
    // A pipe's error (EPIPE once the server died) is the transport's to report, never this thread's crash.
    for (const stream of [this.stdin, this.stdout, this.stderr]) stream.on("error", () => {});
    for (const stream of [this.stdout, this.stderr]) stream.once("close", () => this.closed());
    held.port.on("message", (msg: FromHost) => {
      if (msg.t === "exit") this.exited(msg.code ?? null, msg.signal ?? null);
    });
  }

  kill(signal: NodeJS.Signals = "SIGTERM"): boolean {
    if (this.exitCode !== null || this.signalCode !== null) return false;
    this.held.port.postMessage({ t: "kill", signal });
    return true;
  }

  private exited(code: number | null, signal: NodeJS.Signals | null): void {
    this.exitCode = code;
    this.signalCode = signal;
    // As Node does at a child's exit: its stdin goes, and output nobody reads is drained so it closes.
    this.stdin.destroy();
    for (const stream of [this.stdout, this.stderr]) if (stream.readableFlowing !== true) stream.resume();
    this.emit("exit", code, signal);
    this.closed();
  }

  private closed(): void {
    if (--this.closesNeeded > 0) return;
    this.held.port.close();
    this.emit("close", this.exitCode, this.signalCode);
  }
}
