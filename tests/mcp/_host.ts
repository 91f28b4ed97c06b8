/**
 * Boots a real host with mcp-remote instances (real worker threads, real MCP servers as child
 * processes) and records the host's log lines, for the tests under tests/mcp/.
 */
import { fileURLToPath } from "node:url";
import { createHost, type Host } from "../../src/index.js";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const EVERYTHING = fileURLToPath(new URL("../../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url));
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

export async function bootMcp(instances: Record<string, Record<string, unknown>>, extra: Record<string, unknown> = {}): Promise<TestHost> {
  const logs: LogRecord[] = [];
  const waiters = new Set<{ match: (r: LogRecord) => boolean; resolve(r: LogRecord): void }>();
  const destination = {
    write(line: string) {
      const record = JSON.parse(line) as LogRecord;
      logs.push(record);
      for (const w of waiters) if (w.match(record)) { waiters.delete(w); w.resolve(record); }
    },
  };
  const host = await createHost({ config: { plugins: [], mcpConnectors: instances, ...extra }, dir: ROOT, logLevel: "debug", logDestination: destination });
  return {
    host,
    logs,
    waitLog(match, what) {
      const found = logs.find(match);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const w = { match, resolve };
        waiters.add(w);
        setTimeout(() => { if (waiters.delete(w)) reject(new Error(`no log line: ${what}`)); }, 10_000).unref();
      });
    },
  };
}
