/**
 * A stdio server the host's thread spawns for a warm thread (src/spawn/held-server.ts): its stdio
 * are FIFOs whose host ends a real worker thread takes over (src/worker/held-process.ts, from dist/
 * as the runtime runs it) unless the host let them go first, its exit is told to that thread, the
 * thread's signals are asked of the host and only a few are granted, each descriptor is closed
 * once, and the server never outlives the thread that took it or the host's release.
 */
import { readdirSync, readlinkSync, readFileSync } from "node:fs";
import path from "node:path";
import { Worker } from "node:worker_threads";
import { afterAll, describe, expect, it } from "vitest";
import type { PrespawnOrder } from "../../src/contract/rpc.js";
import { type HeldServer, holdServers } from "../../src/spawn/held-server.js";
import { cleanupTempDirs, ROOT, tempDir, until } from "../helpers.js";

afterAll(cleanupTempDirs);

const env = { PATH: process.env.PATH ?? "" };
const order = (script: string, cwd = tempDir("pb-held-")): PrespawnOrder => ({
  instance: "mcpConnectors/a",
  command: "sh",
  args: ["-c", script],
  cwd,
  env,
});

/** Running, and not a zombie. */
const alive = (pid: number) => {
  try {
    return !/^\S+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
};
/** This process's descriptors that are ends of a held server's FIFOs. */
const fifoEnds = () =>
  readdirSync("/proc/self/fd").filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`).includes("patchbay-stdio-");
    } catch {
      return false;
    }
  });

const holdServer = (o: PrespawnOrder) => holdServers([o])[0];
const heldProcess = path.join(ROOT, "dist", "worker", "held-process.js");

/**
 * A real thread that takes `held` as the runtime does, runs `script` on it (with `proc` in scope)
 * and reports what it posts; `script` ends by calling done(value).
 */
function inThread(held: HeldServer, script: string): { result: Promise<unknown>; worker: Worker } {
  const worker = new Worker(
    `import { workerData, parentPort } from "node:worker_threads";
     const { HeldProcess } = await import(workerData.module);
     const proc = await HeldProcess.take(workerData.held);
     const done = (value) => parentPort.postMessage(value);
     if (!proc) done("gone");
     ${script}`,
    {
      eval: true,
      workerData: { module: new URL(`file://${heldProcess}`).href, held: held.handover },
      transferList: [held.handover.port],
    },
  );
  const result = new Promise((resolve, reject) => {
    worker.once("message", resolve);
    worker.once("error", reject);
  });
  return { result, worker };
}

describe("a server held by the host's thread", () => {
  it("runs on FIFOs a thread takes: what it writes is read there, its exit and close come after", async () => {
    const held = holdServer(order('read line; echo "got $line"; echo "to stderr" >&2; exit 3'));
    expect(held).not.toBeNull();
    const { pid } = (held as HeldServer).handover;
    expect(readlinkSync(`/proc/${pid}/fd/0`)).toMatch(/patchbay-stdio-.*\(deleted\)$/);
    const { result } = inThread(
      held as HeldServer,
      `let out = "", err = ""; const events = [];
       proc.stdout.on("data", (d) => (out += d));
       proc.stderr.on("data", (d) => (err += d));
       proc.on("exit", (code, signal) => events.push(["exit", code, signal]));
       proc.on("close", (code, signal) => { events.push(["close", code, signal]); done({ out, err, events, pid: proc.pid }); });
       proc.stdin.write("hello\\n");`,
    );
    expect(await result).toEqual({
      out: "got hello\n",
      err: "to stderr\n",
      events: [
        ["exit", 3, null],
        ["close", 3, null],
      ],
      pid,
    });
    // The thread's sockets closed the ends handed over to it.
    await until(() => fifoEnds().length === 0, 10_000, "every end of the FIFOs to be closed");
  });

  it("sees its stdin end when the thread ends it (the MCP polite shutdown)", async () => {
    const held = holdServer(order("cat >/dev/null; exit 7")) as HeldServer;
    const { result } = inThread(held, `proc.on("close", (code) => done(code)); proc.stdin.end();`);
    expect(await result).toBe(7);
  });

  it("is signalled only as the thread may ask, and only while it runs", async () => {
    const held = holdServer(order("exec sleep 60")) as HeldServer;
    const { pid } = held.handover;
    const { result } = inThread(
      held,
      `const port = workerData.held.port;
       // A thread may ask for nothing else: these are ignored.
       for (const m of [{ t: "kill", signal: "SIGSTOP" }, { t: "kill", signal: 9 }, { t: "kill" }, null, "x", { t: "exit", code: 0 }])
         port.postMessage(m);
       setTimeout(() => {
         proc.on("exit", (code, signal) => done({ code, signal, again: proc.kill("SIGKILL") }));
         proc.kill("SIGTERM");
       }, 300);`,
    );
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(readFileSync(`/proc/${pid}/stat`, "utf8")).not.toMatch(/^\S+ \(.*\) T/); // not stopped
    expect(await result).toEqual({ code: null, signal: "SIGTERM", again: false });
  });

  it("is killed when the thread that took it ends without closing it", async () => {
    const held = holdServer(order("exec sleep 60")) as HeldServer;
    const { pid } = held.handover;
    const { result, worker } = inThread(held, `done("took");`);
    expect(await result).toBe("took");
    await worker.terminate();
    await until(() => !alive(pid), 10_000, "the server to be killed with its thread");
    await until(() => fifoEnds().length === 0, 10_000, "every end of the FIFOs to be closed");
  });

  it("is killed, and the host's ends closed, when no thread takes it", async () => {
    const held = holdServer(order("exec sleep 60")) as HeldServer;
    expect(fifoEnds()).toHaveLength(3);
    held.release();
    await until(() => !alive(held.handover.pid), 10_000, "the unused server to be killed");
    expect(fifoEnds()).toHaveLength(0);
  });

  it("that ended before its thread asked is handed over ended: its exit is known at once, then it closes", async () => {
    const held = holdServer(order("echo bye; exit 5")) as HeldServer;
    await until(() => !alive(held.handover.pid), 10_000, "the server to end");
    const { result } = inThread(
      held,
      `const at = [proc.exitCode, proc.signalCode]; let out = "";
       proc.stdout.on("data", (d) => (out += d));
       proc.on("close", (code) => done({ at, code, out }));`,
    );
    expect(await result).toEqual({ at: [5, null], code: 5, out: "bye\n" });
    await until(() => fifoEnds().length === 0, 10_000, "every end of the FIFOs to be closed");
  });

  it("is not handed to a thread that asks after the host let it go", async () => {
    const held = holdServer(order("exec sleep 60")) as HeldServer;
    held.release();
    const { result } = inThread(held, `done("took");`);
    expect(await result).toBe("gone");
    expect(alive(held.handover.pid)).toBe(false);
    expect(fifoEnds()).toHaveLength(0);
  });

  it("closes each descriptor once, however many threads come and go (Node closes a thread's fs descriptors at its exit)", async () => {
    // A descriptor closed twice may be another thread's by then; libuv aborts when it was its signal pipe.
    for (let i = 0; i < 20; i++) {
      const held = holdServer(order('read line; echo "$line"; exit 0')) as HeldServer;
      const { result } = inThread(
        held,
        `let out = ""; proc.stdout.on("data", (d) => (out += d)); proc.on("close", () => done(out)); proc.stdin.write("${i}\\n");`,
      );
      expect(await result).toBe(`${i}\n`);
      // Something else this thread does meanwhile with descriptors and children: a spawnSync's own loop and pipes.
      await import("node:child_process").then((cp) => cp.execFileSync("true"));
    }
    await until(() => fifoEnds().length === 0, 10_000, "every end of the FIFOs to be closed");
  });

  it("holds several at once, each on FIFOs of its own, each taken by its own thread", async () => {
    const held = holdServers([order('read x; echo "a$x"'), order('read x; echo "b$x"')]) as HeldServer[];
    expect(held.map((h) => h !== null)).toEqual([true, true]);
    const outs = held.map(
      (h) =>
        inThread(
          h,
          `let out = ""; proc.stdout.on("data", (d) => (out += d)); proc.on("close", () => done(out)); proc.stdin.write("1\\n");`,
        ).result,
    );
    expect(await Promise.all(outs)).toEqual(["a1\n", "b1\n"]);
    await until(() => fifoEnds().length === 0, 10_000, "every end of the FIFOs to be closed");
  });

  it("is not held when its spawn fails at once (the thread spawns it and reports why), and leaks nothing", () => {
    expect(holdServer({ ...order("exit 0"), command: "/nonexistent/server" })).toBeNull();
    expect(holdServer(order("exit 0", "/nonexistent/folder"))).toBeNull();
    expect(fifoEnds()).toHaveLength(0);
  });
});
