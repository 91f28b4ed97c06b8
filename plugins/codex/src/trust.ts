/**
 * Trusting Patchbay's hooks the way Codex's own `/hooks` screen does: through Codex's app-server
 * (`codex app-server`, JSON-RPC, one JSON object a line over stdio). `hooks/list` gives each hook's
 * key (`<hooks.json>:<event>:<group>:<handler>`) and the hash of its current content;
 * `config/batchWrite` records `hooks.state."<key>".trusted_hash` in CODEX_HOME/config.toml. Codex
 * writes its own file, so Patchbay never edits config.toml, and Codex's rules for a trust record
 * (hashing, the key format) stay Codex's. Only the hooks whose command is exactly one Patchbay
 * wired are touched, and only when the user asked (`adapter install --trust-hooks`).
 */
import { spawn } from "node:child_process";

/** The fields of one `hooks/list` entry this module reads; the rest of Codex's answer is ignored. */
interface ListedHook {
  key: string;
  command: string | null;
  sourcePath: string;
  currentHash: string;
  trustStatus: string;
}

export interface AppServer {
  /** CODEX_HOME for the app-server: where it reads hooks.json and writes config.toml. */
  codexHome: string;
  /** The codex binary (the path the probe found). */
  bin: string;
  home: string;
  cwd: string;
  /** Bound on the whole conversation, so a client that never answers cannot hang install. */
  timeoutMs?: number;
}

/** Bounds on what the app-server may send: its answers are input like any other. */
const MAX_LINE = 4 * 1024 * 1024;
const MAX_HOOKS = 10_000;

type Call = (method: string, params: unknown) => Promise<unknown>;

/** Runs `talk` against a fresh `codex app-server`, then stops it. */
async function withAppServer<T>(server: AppServer, talk: (call: Call) => Promise<T>): Promise<T> {
  const child = spawn(server.bin, ["app-server"], {
    cwd: server.cwd,
    env: { ...process.env, HOME: server.home, CODEX_HOME: server.codexHome },
    stdio: ["pipe", "pipe", "ignore"],
  });
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  const failAll = (err: Error) => {
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  };
  child.on("error", (err) => failAll(new Error(`could not start ${server.bin} app-server: ${err.message}`)));
  child.on("exit", (code) => failAll(new Error(`${server.bin} app-server exited (code ${code}) before answering`)));
  child.stdin.on("error", () => {}); // an early exit is reported by "exit" above
  onLines(child.stdout, (line) => {
    let msg: { id?: unknown; result?: unknown; error?: unknown };
    try {
      msg = JSON.parse(line) as typeof msg;
    } catch {
      return; // not a protocol line
    }
    const waiting = typeof msg.id === "number" ? pending.get(msg.id) : undefined;
    if (!waiting || typeof msg.id !== "number") return;
    pending.delete(msg.id);
    if (msg.error !== undefined) {
      const text = JSON.stringify(msg.error) ?? "";
      waiting.reject(new Error(`Codex app-server refused: ${text.slice(0, 500)}`));
    } else waiting.resolve(msg.result);
  });
  let next = 0;
  const call: Call = (method, params) =>
    new Promise((resolve, reject) => {
      const id = ++next;
      pending.set(id, {
        resolve,
        reject: (e) => reject(new Error(`${method}: ${e.message}`)),
      });
      child.stdin.write(`${JSON.stringify({ id, method, params })}\n`);
    });
  const timeoutMs = server.timeoutMs ?? 30_000;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Codex app-server did not answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return await Promise.race([
      (async () => {
        await call("initialize", { clientInfo: { name: "patchbay", version: "1.0.0" } });
        child.stdin.write(`${JSON.stringify({ method: "initialized" })}\n`);
        return talk(call);
      })(),
      deadline,
    ]);
  } finally {
    clearTimeout(timer);
    child.kill();
  }
}

/**
 * Calls `onLine` for each line of `stream`, holding at most MAX_LINE bytes: a longer line is
 * dropped as it streams (never buffered whole), so a client printing without end costs nothing.
 */
function onLines(stream: NodeJS.ReadableStream, onLine: (line: string) => void): void {
  let held: Buffer[] = [];
  let size = 0;
  let dropping = false;
  stream.on("data", (chunk: Buffer) => {
    let start = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
      const part = chunk.subarray(start, nl);
      if (!dropping && size + part.length <= MAX_LINE) onLine(Buffer.concat([...held, part]).toString("utf8"));
      held = [];
      size = 0;
      dropping = false;
      start = nl + 1;
    }
    const rest = chunk.subarray(start);
    if (dropping || size + rest.length > MAX_LINE) {
      dropping = true;
      held = [];
      size = 0;
    } else if (rest.length > 0) {
      held.push(rest);
      size += rest.length;
    }
  });
}

function listedHooks(result: unknown): ListedHook[] {
  const data = (result as { data?: unknown } | null)?.data;
  if (!Array.isArray(data)) throw new Error("Codex app-server: hooks/list answered without a data list");
  const hooks = data.flatMap((d) => ((d as { hooks?: unknown })?.hooks as unknown[]) ?? []);
  if (hooks.length > MAX_HOOKS) throw new Error(`Codex app-server listed over ${MAX_HOOKS} hooks`);
  return hooks.filter(
    (h): h is ListedHook =>
      !!h &&
      typeof (h as ListedHook).key === "string" &&
      typeof (h as ListedHook).sourcePath === "string" &&
      typeof (h as ListedHook).currentHash === "string",
  );
}

export interface TrustResult {
  /** Keys whose trust this call recorded. */
  trusted: string[];
  /** Keys of Patchbay's hooks Codex already trusted at their current content. */
  already: string[];
}

/**
 * Records trust for the hooks in `hooksFile` whose command is one of `commands`, at the hash Codex
 * computes for their current content. Anything else Codex lists (the user's own hooks, other
 * files) is left as it is.
 */
export async function trustHooks(
  server: AppServer,
  hooksFile: string,
  commands: readonly string[],
): Promise<TrustResult> {
  return withAppServer(server, async (call) => {
    const ours = listedHooks(await call("hooks/list", { cwds: [server.cwd] })).filter(
      (h) => h.sourcePath === hooksFile && h.command !== null && commands.includes(h.command),
    );
    const todo = ours.filter((h) => h.trustStatus !== "trusted");
    if (todo.length > 0) {
      const value = Object.fromEntries(todo.map((h) => [h.key, { trusted_hash: h.currentHash }]));
      await call("config/batchWrite", { edits: [{ keyPath: "hooks.state", mergeStrategy: "upsert", value }] });
    }
    return {
      trusted: todo.map((h) => h.key),
      already: ours.filter((h) => h.trustStatus === "trusted").map((h) => h.key),
    };
  });
}

/**
 * Removes the trust records `keys` names (the ones a trustHooks call wrote), through the app-server:
 * a `null` written with "replace" at `hooks.state."<key>"` deletes that one table. A key Codex made
 * holds a path, so a key with a quote or a backslash (which the key path could not carry) is refused.
 */
export async function untrustHooks(server: AppServer, keys: readonly string[]): Promise<string[]> {
  if (keys.length === 0) return [];
  const bad = keys.find((k) => /["\\\n]/.test(k));
  if (bad !== undefined) throw new Error(`not a Codex hook key: ${JSON.stringify(bad).slice(0, 200)}`);
  return withAppServer(server, async (call) => {
    const edits = keys.map((k) => ({ keyPath: `hooks.state."${k}"`, mergeStrategy: "replace", value: null }));
    await call("config/batchWrite", { edits });
    return [...keys];
  });
}
