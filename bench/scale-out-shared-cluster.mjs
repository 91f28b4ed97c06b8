// The cluster of bench/scale-out-shared.mjs: replicas that share their sessions in PostgreSQL,
// each with its own copy of the fixture server on one folder, and an SDK client that records
// what reached it (updates, HTTP statuses, errors).
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { startCluster } from "./scale-out.mjs";

const FIXTURE = path.join(path.dirname(fileURLToPath(import.meta.url)), "watched-resources-server.mjs");
export const READ_TOOL = "memory__shared__get";
export const uriOf = (name) => `watched://r/${encodeURIComponent(name)}`;
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const sha = (t) => createHash("sha256").update(t).digest("hex");

/**
 * Config every replica of a cluster adds: the fixture server on `watchedDir` (exposed), two
 * clients with their own tokens (sessions are their opener's), and, unless `stateless`, the
 * shared state that makes a stateful replica record its sessions in PostgreSQL.
 */
export function sharedExtra({ watchedDir, clientTokens, stateless = false }) {
  const see = { "mcpConnectors/watched": true, "memoryStores/shared": ["get", "write"] };
  return {
    mcpConnectors: {
      watched: { plugin: "mcp-remote", config: { command: process.execPath, args: [FIXTURE, watchedDir] } },
    },
    gateway: {
      ...(stateless ? {} : { state: { postgres: "${PATCHBAY_SCALE_PG}" } }),
      expose: { "mcpConnectors/watched": true },
      clients: Object.fromEntries(
        Object.entries(clientTokens).map(([id, token]) => [id, { tokenSha256: sha(token), expose: see }]),
      ),
    },
  };
}

/**
 * Until every instance of the replica on `port` is ready: a replica listens before its instances
 * boot, and a subscription sent before the fixture is up finds no connector listing the URI.
 */
async function untilReady(port, token) {
  for (let i = 0; ; i++) {
    const status = await fetch(`http://127.0.0.1:${port}/status`, { headers: { Authorization: `Bearer ${token}` } })
      .then((r) => r.json())
      .catch(() => null);
    const states = status?.instances?.map((x) => x.state) ?? [];
    if (states.length > 0 && states.every((s) => s === "ready")) return;
    if (i > 600) throw new Error(`replica on ${port} not ready after 60 s: ${JSON.stringify(status?.instances)}`);
    await sleep(100);
  }
}

/** A cluster (`shared`, or `stateless` with the same connectors) and the folder its fixtures watch. */
export async function startSharedCluster({ pgUrl, haproxy, mode = "shared", n = 3 }) {
  const watchedDir = mkdtempSync(path.join(os.tmpdir(), "pb-watched-"));
  const clientTokens = { a: `pbc_a_${randomBytes(12).toString("hex")}`, b: `pbc_b_${randomBytes(12).toString("hex")}` };
  const extra = sharedExtra({ watchedDir, clientTokens, stateless: mode === "stateless" });
  const cluster = await startCluster({ pgUrl, haproxy, mode, n, extra }).catch((err) => {
    rmSync(watchedDir, { recursive: true, force: true });
    throw err;
  });
  const { stop, restart } = cluster;
  await Promise.all(cluster.replicas.map((r) => untilReady(r.port, cluster.token)));
  return Object.assign(cluster, {
    watchedDir,
    clientTokens,
    async restart(i) {
      await restart(i);
      await untilReady(cluster.replicas[i].port, cluster.token);
    },
    async stop() {
      await stop();
      rmSync(watchedDir, { recursive: true, force: true });
    },
  });
}

/**
 * An SDK client with the transport's default options (it reconnects its GET stream by itself),
 * through a fetch that only counts what it saw: every reply's method and status (a 404 is a
 * session some replica did not know) and every connection that failed.
 */
export async function watchingClient(url, token, seen) {
  const counted = async (input, init) => {
    const key = init?.method ?? "GET";
    try {
      const res = await fetch(input, init);
      seen.statuses[`${key} ${res.status}`] = (seen.statuses[`${key} ${res.status}`] ?? 0) + 1;
      return res;
    } catch (err) {
      seen.statuses[`${key} failed`] = (seen.statuses[`${key} failed`] ?? 0) + 1;
      throw err;
    }
  };
  for (let attempt = 1; ; attempt++) {
    const client = new Client({ name: "scale-watcher", version: "1.0.0" });
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) =>
      seen.updates.push({ uri: n.params.uri, at: performance.now() }),
    );
    // A subscription the gateway could not carry on is ended with a warning in the log stream.
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) =>
      (seen.logs ??= []).push(String(n.params.data).slice(0, 300)),
    );
    client.onerror = (err) => {
      const why = String(err?.message ?? err).slice(0, 240);
      seen.errors[why] = (seen.errors[why] ?? 0) + 1;
    };
    try {
      await client.connect(
        new StreamableHTTPClientTransport(new URL(url), {
          requestInit: { headers: { Authorization: `Bearer ${token}` } },
          fetch: counted,
        }),
      );
      seen.initializes++;
      return client;
    } catch (err) {
      await client.close().catch(() => {});
      if (attempt >= 10) throw err;
      await sleep(100 * attempt);
    }
  }
}
