/**
 * The local control channel of a running `patchbay serve`: a Unix socket, `.patchbay/serve.sock`,
 * mode 0600 in a 0700 folder. One request per connection: a JSON line in, a JSON line out.
 * Requests: {"op":"status"}, and {"op":"call", "instance", "method", "args", "timeoutMs"?} (so
 * `patchbay call` reuses a running server instead of booting its own), each carrying `key`.
 * Anything else, and any line that is not JSON or longer than MAX_LINE, gets an error line and the
 * connection closes.
 *
 * Why a key and not only the file mode: a plugin in "isolation": "process" runs as the same user,
 * and Node's permission model does not check connects to Unix sockets, so the 0600 socket alone
 * let a plugin call any instance. Node has no SO_PEERCRED without a native addon, and the socket
 * must stay where `patchbay status` finds it. So every request carries a per-serve random key
 * (`.patchbay/serve.key`, 0600, written before the socket listens, removed at close) and is
 * refused without it: a process-isolated child cannot read `.patchbay/` (outside its fs grants),
 * a sandboxed one does not even see it, and the key is never in any child's environment.
 * A plugin whose permissions.fs covers `.patchbay/` (or is "*") is trusted with the server; see
 * docs/isolation.md.
 */
import { randomBytes, timingSafeEqual, createHash } from "node:crypto";
import { chmodSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { pbError, toWire } from "../errors.js";
import { ensureStateDir } from "./state-dir.js";

/** A request line (a `call` carries its arguments) may be this long at most. */
const MAX_LINE = 4 * 1024 * 1024;
/**
 * Until a line shows the key (our clients send it first), a connection may hold this much, and
 * at most MAX_ANONYMOUS such connections are open (a new one closes the oldest): whoever can
 * connect without the key (a process-isolated plugin) holds at most 4 MiB of the server's memory,
 * and cannot shut the operator out by holding connections open.
 */
const MAX_ANONYMOUS_LINE = 64 * 1024;
const MAX_ANONYMOUS = 64;
/** A request line must have arrived whole this long after connecting. */
const REQUEST_MS = 10_000;
export const SOCKET_NAME = "serve.sock";
export const KEY_NAME = "serve.key";

export type ControlHandler = (request: Record<string, unknown>) => Promise<unknown>;

export interface ControlServer {
  path: string;
  close(): Promise<void>;
}

export async function startControl(
  dir: string,
  handler: ControlHandler,
  { requestMs = REQUEST_MS }: { requestMs?: number } = {},
): Promise<ControlServer> {
  const socketPath = path.join(ensureStateDir(dir), SOCKET_NAME);
  if (await answers(socketPath)) {
    throw pbError(
      "PB_ERR_GATEWAY_LISTEN",
      `Another \`patchbay serve\` already runs for this folder (its control socket ${socketPath} answers).`,
      { socket: socketPath },
    );
  }
  try {
    unlinkSync(socketPath); // A stale socket of a server that died.
  } catch {
    /* none */
  }
  const keyPath = path.join(path.dirname(socketPath), KEY_NAME);
  const key = randomBytes(32).toString("base64url");
  try {
    unlinkSync(keyPath); // A stale key (maybe of another mode): never written through.
  } catch {
    /* none */
  }
  writeFileSync(keyPath, key + "\n", { mode: 0o600, flag: "wx" });
  // A line that starts with the key, as our clients write it: timing-safe, like keyMatches.
  const keyPrefix = Buffer.from(`{"key":${JSON.stringify(key)}`);
  const startsWithKey = (text: string) => {
    const head = Buffer.from(text.slice(0, keyPrefix.length));
    return head.length === keyPrefix.length && timingSafeEqual(head, keyPrefix);
  };
  const anonymous = new Set<net.Socket>();
  const server = net.createServer((conn) => {
    anonymous.add(conn);
    if (anonymous.size > MAX_ANONYMOUS) {
      const oldest = anonymous.values().next().value as net.Socket;
      anonymous.delete(oldest);
      oldest.destroy();
    }
    conn.setTimeout(requestMs, () => conn.destroy());
    conn.on("close", () => anonymous.delete(conn));
    let buf = "";
    conn.setEncoding("utf8");
    conn.on("error", () => undefined);
    conn.on("data", (chunk: string) => {
      const before = buf.length;
      buf += chunk;
      // Only the new chunk is searched: a line in many pieces costs its length once.
      const at = chunk.indexOf("\n");
      const end = at === -1 ? buf.length : before + at;
      if (anonymous.has(conn) && end >= keyPrefix.length && startsWithKey(buf)) anonymous.delete(conn);
      if (end > (anonymous.has(conn) ? MAX_ANONYMOUS_LINE : MAX_LINE)) {
        conn.removeAllListeners("data");
        return void reply(conn, { ok: false, error: toWire(pbError("PB_ERR_USAGE", "Control request too long.")) });
      }
      if (at === -1) return;
      const line = buf.slice(0, end);
      buf = "";
      conn.removeAllListeners("data");
      anonymous.delete(conn);
      conn.setTimeout(0); // the request is in; a call may run as long as its own deadline
      let request: unknown;
      try {
        request = JSON.parse(line);
      } catch {
        return void reply(conn, { ok: false, error: toWire(pbError("PB_ERR_USAGE", "Control request is not JSON.")) });
      }
      if (!request || typeof request !== "object" || Array.isArray(request))
        return void reply(conn, {
          ok: false,
          error: toWire(pbError("PB_ERR_USAGE", "Control request must be a JSON object.")),
        });
      const { key: presented, ...rest } = request as Record<string, unknown>;
      if (!keyMatches(presented, key)) {
        return void reply(conn, {
          ok: false,
          error: toWire(
            pbError(
              "PB_ERR_CONTROL_UNAUTHORIZED",
              `Control request refused: it does not carry this server's key (${keyPath}).`,
              { key: keyPath },
            ),
          ),
        });
      }
      handler(rest).then(
        (value) => reply(conn, { ok: true, value }),
        (err: unknown) => reply(conn, { ok: false, error: toWire(err) }),
      );
    });
  });
  const old = process.umask(0o177); // The socket is created 0600, not chmod-ed after a window.
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(socketPath, () => resolve());
    });
  } finally {
    process.umask(old);
  }
  chmodSync(socketPath, 0o600);
  return {
    path: socketPath,
    close: () =>
      new Promise<void>((resolve) =>
        server.close(() => {
          // Only our own key: a later serve for this folder may have written its own.
          try {
            if (readFileSync(keyPath, "utf8").trim() === key) unlinkSync(keyPath);
          } catch {
            /* gone */
          }
          resolve();
        }),
      ),
  };
}

function keyMatches(presented: unknown, key: string): boolean {
  if (typeof presented !== "string") return false;
  const digest = (s: string) => createHash("sha256").update(s).digest();
  return timingSafeEqual(digest(presented), digest(key));
}

/** The running server's key, or undefined when it cannot be read (the server then refuses, with its code). */
function readKey(dir: string): string | undefined {
  try {
    return readFileSync(path.join(dir, KEY_NAME), "utf8").trim();
  } catch {
    return undefined;
  }
}

/**
 * The one answer of a connection, which then closes whatever the other end does (a Unix socket keeps what was
 * written).
 */
function reply(conn: net.Socket, body: unknown): void {
  conn.end(JSON.stringify(body) + "\n", () => conn.destroy());
}

/**
 * Sends one request to the server of `dir`. null when no server listens there (nothing was sent);
 * once connected, a lost or unanswered request rejects instead: a call may have run, so the
 * caller must not silently run it again elsewhere.
 */
export async function askServer(
  dir: string,
  request: Record<string, unknown>,
  timeoutMs = 10_000,
): Promise<{ ok: boolean; value?: unknown; error?: unknown } | null> {
  const socketPath = path.join(dir, SOCKET_NAME);
  return new Promise((resolve, reject) => {
    const conn = net.createConnection(socketPath);
    let buf = "";
    let connected = false;
    const timer = setTimeout(() => {
      conn.destroy();
      if (!connected) return resolve(null);
      reject(
        pbError("PB_ERR_CALL_TIMEOUT", `The running \`patchbay serve\` did not answer within ${timeoutMs} ms.`, {
          socket: socketPath,
        }),
      );
    }, timeoutMs);
    conn.setEncoding("utf8");
    conn.on("connect", () => {
      connected = true;
      // The key first: the server then allows the line its full length (MAX_LINE).
      conn.write(JSON.stringify({ key: readKey(dir), ...request }) + "\n");
    });
    conn.on("data", (chunk: string) => (buf += chunk));
    conn.on("end", () => {
      clearTimeout(timer);
      try {
        resolve(JSON.parse(buf));
      } catch {
        reject(
          pbError(
            "PB_ERR_INTERNAL",
            `The running \`patchbay serve\` closed the control connection without an answer.`,
            { socket: socketPath },
          ),
        );
      }
    });
    conn.on("error", (err) => {
      clearTimeout(timer);
      if (!connected) return resolve(null);
      reject(
        pbError("PB_ERR_INTERNAL", `The control connection to the running \`patchbay serve\` failed: ${err.message}.`, {
          socket: socketPath,
        }),
      );
    });
  });
}

async function answers(socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    const conn = net.createConnection(socketPath);
    conn.on("connect", () => (conn.destroy(), resolve(true)));
    conn.on("error", () => resolve(false));
  });
}
