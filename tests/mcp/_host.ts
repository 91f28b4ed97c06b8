/**
 * Boots a real host with mcp-remote instances (real worker threads, real MCP servers as child
 * processes) and records the host's log lines, for the tests under tests/mcp/.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { createHost, type Host } from "../../src/index.js";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const EVERYTHING = fileURLToPath(
  new URL("../../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url),
);
export const HOSTILE = fileURLToPath(new URL("../fixtures/mcp/hostile-server.mjs", import.meta.url));

export interface LogRecord {
  level: number;
  msg: string;
  instance?: string;
  [key: string]: unknown;
}

export interface TestHost {
  host: Host;
  logs: LogRecord[];
  /** Resolves once a log record matches (no fixed sleeps: tests wait on the event). */
  waitLog(match: (r: LogRecord) => boolean, what: string): Promise<LogRecord>;
}

export async function bootMcp(
  instances: Record<string, Record<string, unknown>>,
  extra: Record<string, unknown> = {},
): Promise<TestHost> {
  const logs: LogRecord[] = [];
  const waiters = new Set<{ match: (r: LogRecord) => boolean; resolve(r: LogRecord): void }>();
  const destination = {
    write(line: string) {
      const record = JSON.parse(line) as LogRecord;
      logs.push(record);
      for (const w of waiters)
        if (w.match(record)) {
          waiters.delete(w);
          w.resolve(record);
        }
    },
  };
  const host = await createHost({
    config: { plugins: [], mcpConnectors: instances, ...extra },
    dir: ROOT,
    logLevel: "debug",
    logDestination: destination,
  });
  return {
    host,
    logs,
    waitLog(match, what) {
      const found = logs.find(match);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const w = { match, resolve };
        waiters.add(w);
        // Only turns a hang into a failure: generous, for a loaded machine.
        setTimeout(() => {
          if (waiters.delete(w)) reject(new Error(`no log line: ${what}`));
        }, 60_000).unref();
      });
    },
  };
}

export const EVERYTHING_HTTP = fileURLToPath(new URL("../fixtures/mcp/everything-http.mjs", import.meta.url));

export interface HttpFixture {
  url: string;
  stop(): Promise<void>;
}

/** Starts a fixture HTTP MCP server (a script that prints `LISTENING <port>` once bound on 127.0.0.1). */
export async function startHttpFixture(script: string): Promise<HttpFixture> {
  const proc = spawn(process.execPath, [script], { stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  proc.stderr!.on("data", (d) => (stderr += d));
  const port = await new Promise<number>((resolve, reject) => {
    let out = "";
    proc.stdout!.on("data", (d) => {
      out += d;
      const m = /LISTENING (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    proc.once("exit", (code) => reject(new Error(`${script} exited (${code}): ${stderr}`)));
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    async stop() {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      const exited = once(proc, "exit");
      proc.kill("SIGKILL");
      await exited;
    },
  };
}

/** Waits (up to a minute) for a condition the test cannot be told about (a file another process writes), checking often. */
export async function until(ok: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 3_000; i++) {
    if (ok()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`gave up waiting for ${what}`);
}

/** Whether a process still exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
