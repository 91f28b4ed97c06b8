/**
 * The thread's side of a server the host's thread spawned for it (spawn/held-server.ts says why
 * and how): this thread's own ends of the server's stdio, opened through /proc/self/fd from the
 * host's, and a stand-in for the ChildProcess mcp-remote would have had: the same streams, pid,
 * exitCode and signalCode, kill(), and "exit" then "close" as Node emits them. The exit is told by
 * the host's thread, which reaped it; a signal is asked of it.
 */
import { EventEmitter } from "node:events";
import { closeSync, constants, openSync } from "node:fs";
import { createRequire } from "node:module";
import type { Socket } from "node:net";
import type { HeldHandover } from "../contract/rpc.js";

/** node:net only when a server is held (every other thread's start stays as it was). */
const net = () => createRequire(import.meta.url)("node:net") as typeof import("node:net");

export class HeldProcess extends EventEmitter {
  readonly pid: number;
  readonly stdin: Socket;
  readonly stdout: Socket;
  readonly stderr: Socket;
  exitCode: number | null = null;
  signalCode: NodeJS.Signals | null = null;
  /** "close" waits for the exit and for stdout and stderr to close, as a ChildProcess's does. */
  private closesNeeded = 3;

  /** Opens this thread's ends; throws when it cannot (the server already gone), having opened nothing. */
  constructor(private readonly held: HeldHandover) {
    super();
    this.pid = held.pid;
    const { O_RDONLY, O_WRONLY, O_NONBLOCK } = constants;
    const fds: number[] = [];
    try {
      fds.push(openSync(`/proc/self/fd/${held.stdin}`, O_WRONLY | O_NONBLOCK));
      fds.push(openSync(`/proc/self/fd/${held.stdout}`, O_RDONLY | O_NONBLOCK));
      fds.push(openSync(`/proc/self/fd/${held.stderr}`, O_RDONLY | O_NONBLOCK));
    } catch (err) {
      for (const fd of fds) closeSync(fd);
      throw err;
    }
    const { Socket } = net();
    this.stdin = new Socket({ fd: fds[0], readable: false, writable: true });
    this.stdout = new Socket({ fd: fds[1], readable: true, writable: false });
    this.stderr = new Socket({ fd: fds[2], readable: true, writable: false });
    held.port.postMessage({ t: "took" });
    // A pipe's error (EPIPE once the server died) is the transport's to report, never this thread's crash.
    for (const stream of [this.stdin, this.stdout, this.stderr]) stream.on("error", () => {});
    for (const stream of [this.stdout, this.stderr]) stream.once("close", () => this.closed());
    held.port.on("message", (msg: { t: string; code: number | null; signal: NodeJS.Signals | null }) => {
      if (msg.t === "exit") this.exited(msg.code, msg.signal);
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
