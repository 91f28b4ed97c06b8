/**
 * Helpers for the gateway tests: a connectors.json around the fx-gw-mcp fixture, the real bin as
 * `serve --mcp` (an SDK client over stdio) or `serve --http` (a child whose URL is read from its
 * stderr), and waits that resolve on events, never on sleeps.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { BIN, tempDir, writeConfig } from "../helpers.js";
import { HOSTILE } from "../mcp/_host.js";

export interface GwSetup {
  dir: string;
  file: string;
  healthFile: string;
  setHealthy(ok: boolean): void;
}

/** mcpConnectors/gw (fx-gw-mcp, healthy while its file says ok) and a read-only memory store. */
export function gatewayConfig(extra: Record<string, unknown> = {}, dir = tempDir("pb-gw-")): GwSetup {
  const healthFile = path.join(dir, "health");
  writeFileSync(healthFile, "ok");
  const { file } = writeConfig(
    {
      defaults: { timeout_ms: 3_000, health_interval_ms: 100 },
      mcpConnectors: {
        gw: {
          plugin: "fx-gw-mcp",
          allowed_tools: ["echo", "fail", "slow", "whoami"],
          config: { health_file: healthFile },
        },
      },
      memoryStores: { primary: { plugin: "fx-health", required: false, config: { health: "true" } } },
      ...extra,
    },
    dir,
  );
  return { dir, file, healthFile, setHealthy: (ok) => writeFileSync(healthFile, ok ? "ok" : "down") };
}

export const childEnv = (extra: Record<string, string> = {}): Record<string, string> => ({
  PATH: process.env.PATH ?? "",
  HOME: process.env.HOME ?? "",
  ...extra,
});

export interface StdioSession {
  client: Client;
  stderr(): string;
  close(): Promise<void>;
}

export async function connectStdio(
  file: string,
  extraArgs: string[] = [],
  env: Record<string, string> = {},
): Promise<StdioSession> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, "serve", "--mcp", "--config", file, ...extraArgs],
    env: childEnv(env),
    stderr: "pipe",
  });
  let err = "";
  transport.stderr?.on("data", (d) => (err += d));
  const client = new Client({ name: "gw-test", version: "1.0.0" });
  await client.connect(transport);
  return { client, stderr: () => err, close: () => client.close() };
}

export interface HttpServe {
  url: string;
  base: string;
  token: string;
  proc: ChildProcessWithoutNullStreams;
  stderr(): string;
  /** An SDK client; `headers` go with every request (a traceparent, say). */
  connect(token?: string, headers?: Record<string, string>): Promise<Client>;
  stop(): Promise<number | null>;
}

/** `patchbay serve --http --port 0`; resolves once it printed its URL. */
export function startHttpServe(
  file: string,
  env: Record<string, string> = { PATCHBAY_TOKEN: "test-token-123" },
  extraArgs: string[] = [],
  nodeArgs: string[] = [],
): Promise<HttpServe> {
  const proc = spawn(
    process.execPath,
    [...nodeArgs, BIN, "serve", "--http", "--port", "0", "--config", file, ...extraArgs],
    {
      env: childEnv(env),
      cwd: path.dirname(file),
    },
  );
  let err = "";
  return new Promise((resolve, reject) => {
    proc.stderr.on("data", (d) => {
      err += d;
      const m = /Streamable HTTP at (http:\/\/\S+\/mcp)/.exec(err);
      if (m && !settled) {
        settled = true;
        const url = m[1];
        const token = env.PATCHBAY_TOKEN ?? "";
        resolve({
          url,
          base: url.replace(/\/mcp$/, ""),
          token,
          proc,
          stderr: () => err,
          async connect(t = token, headers: Record<string, string> = {}) {
            const client = new Client({ name: "gw-http-test", version: "1.0.0" });
            await client.connect(
              new StreamableHTTPClientTransport(new URL(url), {
                requestInit: { headers: { Authorization: `Bearer ${t}`, ...headers } },
              }),
            );
            return client;
          },
          stop: () =>
            new Promise((done) => {
              if (proc.exitCode !== null) return done(proc.exitCode);
              proc.once("exit", (code) => done(code));
              proc.kill("SIGTERM");
            }),
        });
      }
    });
    let settled = false;
    proc.on("exit", (code) => {
      if (!settled) reject(new Error(`serve --http exited ${code} before listening:\n${err}`));
    });
  });
}

/** Resolves at the next notifications/tools/list_changed the client receives. */
export function nextToolListChange(client: Client): Promise<void> {
  return new Promise((resolve) => client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()));
}

export function toolText(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return content
    .filter((c) => c.type === "text")
    .map((c) => c.text)
    .join("\n");
}

/**
 * One mcp-remote instance, "slowpoke", in front of the hostile fixture server, which appends a
 * line to `startFile` when a call reaches it and to `cancelFile` when it is told to cancel one.
 */
export function slowpokeConfig(prefix: string): { dir: string; file: string; startFile: string; cancelFile: string } {
  const dir = tempDir(prefix);
  const startFile = path.join(dir, "started.txt");
  const cancelFile = path.join(dir, "cancelled.txt");
  const { file } = writeConfig(
    {
      plugins: [],
      defaults: { timeout_ms: 30_000, health_interval_ms: 60_000 },
      mcpConnectors: {
        slowpoke: {
          plugin: "mcp-remote",
          config: { command: "node", args: [HOSTILE], env: { CANCEL_FILE: cancelFile, START_FILE: startFile } },
        },
      },
    },
    dir,
  );
  return { dir, file, startFile, cancelFile };
}
