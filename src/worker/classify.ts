/**
 * What a plugin's thrown error means, so the caller can act on it: the substrate is down
 * (connection refused, DNS, a database that is not there: retry later), it timed out (however the
 * timeout surfaced: an AbortSignal, a socket, an MCP request), or the plugin has a bug. Reads
 * the error's `code`, `name` and its `cause` chain, never its text alone, except for the few
 * libraries that only say it in words.
 */
import { pbError, toWire, type WireError } from "../errors.js";
import { pluginStack } from "./plugin-location.js";

/** Node/undici/libpq errno codes that mean "could not reach or keep the substrate". */
const UNAVAILABLE = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EHOSTDOWN",
  "EPIPE",
  "ECONNABORTED",
  "UND_ERR_SOCKET",
  "UND_ERR_CLOSED",
  // PostgreSQL SQLSTATE: connection exceptions (08xxx), server shutting down, cannot connect now.
  "08000",
  "08001",
  "08003",
  "08004",
  "08006",
  "57P01",
  "57P02",
  "57P03",
  "SQLITE_BUSY",
  "SQLITE_CANTOPEN",
]);
const TIMEOUT = new Set([
  "ETIMEDOUT",
  "ESOCKETTIMEDOUT",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
  "57014",
]);
/** The MCP SDK's RequestTimeout and ConnectionClosed error codes (the server went away). */
const MCP_REQUEST_TIMEOUT = -32001;
const MCP_CONNECTION_CLOSED = -32000;

type Kind = "unavailable" | "timeout" | null;

function kindOf(err: unknown, depth = 0): Kind {
  if (!err || typeof err !== "object" || depth > 5) return null;
  const e = err as { code?: unknown; name?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
  if (e.code === "PB_ERR_SUBSTRATE_UNAVAILABLE") return "unavailable";
  if (typeof e.code === "string" && UNAVAILABLE.has(e.code)) return "unavailable";
  if (typeof e.code === "string" && TIMEOUT.has(e.code)) return "timeout";
  if (e.code === MCP_REQUEST_TIMEOUT || e.name === "TimeoutError") return "timeout";
  if (e.code === MCP_CONNECTION_CLOSED && e.name === "McpError") return "unavailable";
  // AggregateError (happy-eyeballs connect to ::1 and 127.0.0.1) carries the real causes.
  if (Array.isArray(e.errors))
    for (const inner of e.errors) {
      const k = kindOf(inner, depth + 1);
      if (k) return k;
    }
  const fromCause = kindOf(e.cause, depth + 1);
  if (fromCause) return fromCause;
  // pg says "Connection terminated unexpectedly" with no code when the server goes away.
  if (
    typeof e.message === "string" &&
    /^Connection terminated( unexpectedly| due to connection timeout)?$/.test(e.message)
  )
    return e.message.includes("timeout") ? "timeout" : "unavailable";
  return null;
}

/**
 * Node's permission model (process and sandbox isolation) refusing a path: ERR_ACCESS_DENIED with
 * the permission and the resource, anywhere in the cause chain. Its own message ("Access to this
 * API has been restricted") names neither, nor the fix, which is always plugin.json's permissions.fs.
 */
export function fsDenied(err: unknown, where: string, data: Record<string, unknown>): WireError | null {
  for (
    let e = err as { code?: unknown; permission?: unknown; resource?: unknown; cause?: unknown } | null, depth = 0;
    e && typeof e === "object" && depth < 6;
    e = e.cause as typeof e, depth++
  ) {
    if (e.code !== "ERR_ACCESS_DENIED") continue;
    const permission = typeof e.permission === "string" ? e.permission : "FileSystem";
    const access = /Write/.test(permission) ? "write" : /Read/.test(permission) ? "read" : permission;
    const resource = typeof e.resource === "string" && e.resource ? e.resource : null;
    if (!/^FileSystem/.test(permission)) {
      return toWire(
        pbError(
          "PB_ERR_FS_NOT_GRANTED",
          `${where}: Node's permission model refused ${permission} under isolation (isolated plugins may not start processes, threads or addons).`,
          { ...data, permission },
          'An isolated plugin may not use this API: run the instance without "isolation" (a thread), or avoid the API in the plugin.',
        ),
      );
    }
    return toWire(
      pbError(
        "PB_ERR_FS_NOT_GRANTED",
        `${where}: may not ${access} ${resource ?? "a path"} under isolation: the plugin's plugin.json "permissions.fs" does not grant it.`,
        { ...data, permission, ...(resource ? { path: resource } : {}) },
      ),
    );
  }
  return null;
}

/** A thrown error that is not a PB_ERR_* one: unavailable, timeout, or a plugin bug. */
export function classifyPluginError(err: unknown, instance: string, method: string, pluginDir?: string): WireError {
  const message = err instanceof Error ? err.message : String(err);
  const name = err instanceof Error ? err.name : typeof err;
  // The plugin's own frames (its .ts lines): shown with --verbose, never the host's.
  const stack = pluginDir ? pluginStack(err, pluginDir) : null;
  const denied = fsDenied(err, `${instance}.${method}()`, { instance, method });
  if (denied) return denied;
  const kind = kindOf(err);
  if (kind === "unavailable") {
    return toWire(
      pbError("PB_ERR_SUBSTRATE_UNAVAILABLE", `${instance}.${method}(): the substrate is unavailable: ${message}`, {
        instance,
        method,
        name,
      }),
    );
  }
  if (kind === "timeout") {
    return toWire(
      pbError("PB_ERR_CALL_TIMEOUT", `${instance}.${method}(): the substrate timed out: ${message}`, {
        instance,
        method,
        name,
        source: "substrate",
      }),
    );
  }
  // An MCP server's own JSON-RPC error (an unknown resource, a bad argument) is the server's
  // answer, not a plugin bug: its code and message travel on so the gateway can pass them through.
  const rpcCode = (err as { code?: unknown }).code;
  if (name === "McpError" && typeof rpcCode === "number" && Number.isSafeInteger(rpcCode)) {
    const rpcMessage = message.replace(/^MCP error -?\d+: /, "").slice(0, 4000);
    return toWire(
      pbError(
        "PB_ERR_UPSTREAM_RPC",
        `${instance}.${method}(): the server answered JSON-RPC error ${rpcCode}: ${rpcMessage}`,
        { instance, method, rpcCode, rpcMessage },
      ),
    );
  }
  return toWire(
    pbError("PB_ERR_PLUGIN_THREW", `${instance}.${method}() threw: ${message}`, {
      instance,
      method,
      name,
      ...(stack ? { stack } : {}),
    }),
  );
}
