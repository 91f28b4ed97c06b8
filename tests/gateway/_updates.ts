/**
 * Helpers for the subscription tests: the notifications/resources/updated a client receives,
 * with waits that resolve on the notification itself (the bound only turns a hang into a failure).
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { writeConfig } from "../helpers.js";
import { EVERYTHING } from "../mcp/_host.js";

export interface Updates {
  /** Every updated URI in arrival order. */
  got: string[];
  count(uri: string): number;
  /** Resolves at the next update of `uri` (after this call). */
  next(uri: string, boundMs?: number): Promise<void>;
}

export function recordUpdates(client: Client): Updates {
  const got: string[] = [];
  const waiters = new Set<{ uri: string; resolve(): void }>();
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
    got.push(n.params.uri);
    for (const w of [...waiters]) if (w.uri === n.params.uri) waiters.delete(w), w.resolve();
  });
  return {
    got,
    count: (uri) => got.filter((u) => u === uri).length,
    next: (uri, boundMs = 20_000) =>
      new Promise((resolve, reject) => {
        const w = { uri, resolve: () => (clearTimeout(t), resolve()) };
        const t = setTimeout(
          () => waiters.delete(w) && reject(new Error(`no update of ${uri} (got: ${got.join(", ") || "none"})`)),
          boundMs,
        );
        waiters.add(w);
      }),
  };
}

/** mcpConnectors/everything: mcp-remote → @modelcontextprotocol/server-everything on stdio. */
export function everythingConfig(
  extra: Record<string, unknown> = {},
  instance: Record<string, unknown> = {},
): { dir: string; file: string } {
  return writeConfig({
    plugins: [],
    defaults: { timeout_ms: 10_000, health_interval_ms: 60_000 },
    mcpConnectors: {
      everything: { plugin: "mcp-remote", config: { command: "node", args: [EVERYTHING, "stdio"] }, ...instance },
    },
    ...extra,
  });
}

/** server-everything's tool that starts (or stops: it toggles) its simulated updates, at once and then every 5 s. */
export const TOGGLE = "everything__toggle-subscriber-updates";

/** What server-everything logs (relayed to serve's stderr by mcp-remote) when asked to subscribe / unsubscribe. */
export const upstreamSubscribed = (uri: string) => `Received Subscribe Resource request for URI: ${uri} `;
export const upstreamUnsubscribed = (uri: string) => `Received Unsubscribe Resource request: ${uri} `;

export const occurrences = (text: string, part: string) => text.split(part).length - 1;
