/**
 * `serve --mcp`'s head start. A client that spawns an MCP server without waiting for it (Claude
 * Code in `-p` mode sends its first model request about as soon as a plain SDK server could have
 * answered) needs `initialize` and `tools/list` answered before the host and the MCP SDK have even
 * loaded. bin/patchbay.mjs runs this module first, and it imports nothing but node built-ins: when
 * `.patchbay/catalog.json` holds the answers of the last boot for this exact config text (and the
 * environment values it refers to, and this Patchbay version), it answers those two requests
 * (and the lists and server/discover probe a client waits for alongside) itself and buffers
 * everything else. When the gateway is up it takes over the stream: the
 * client's `initialize` is replayed to it (its answer dropped, the client already has one) and
 * the buffered messages follow in order. Anything unexpected: no head start, the gateway answers.
 */
import { createHmac, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { PassThrough, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import type { PrespawnOrder } from "../contract/rpc.js";
import { FrontLines } from "./front-lines.js";
import { prespawnOrders, type SavedPrespawns } from "./stdio-prespawn.js";

const REPLAY_ID = "patchbay-front:initialize";
const MAX_CACHE_BYTES = 8 * 1024 * 1024;
/** How long the CLI waits for the client's first requests before loading anyway. */
const QUIET_MS = 3000;

export interface FrontAnswers {
  stamp: string;
  protocolVersions: string[];
  initialize: { capabilities: Record<string, unknown>; serverInfo: Record<string, unknown>; instructions?: string };
  tools: unknown[];
  /** Worker threads the last boot of this config started (spawn/warm-threads.ts); absent in older files. */
  threads?: number;
  /** The stdio servers its mcp-remote instances spawned, for the warm threads to start (stdio-prespawn.ts). */
  prespawn?: SavedPrespawns;
}

export interface FrontStreams {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  /** The client sent a line over STDIO_MAX_LINE: `input` ends after the lines before it, and so must the connection. */
  overflowed: boolean;
}

let front: { quieted: Promise<void>; handover(): FrontStreams } | null = null;
/** The servers the warm threads start (bin/patchbay.mjs), read with the answers. */
let orders: PrespawnOrder[] = [];

/**
 * The key of every stamp and fingerprint in catalog.json (`<state dir>/catalog.key`, 0600). They
 * cover resolved config and env values, secrets included: a plain hash would let whoever reads
 * catalog.json test guesses of a weak secret offline; under a key that never leaves this folder it
 * says nothing. `create`: the gateway makes one when it first saves; the head start only reads.
 */
export function stampKey(stateDir: string, create: boolean): Buffer | null {
  const file = path.join(stateDir, "catalog.key");
  try {
    const key = Buffer.from(readFileSync(file, "utf8").trim(), "hex");
    if (key.length === 32) return key;
  } catch {
    // missing or unreadable: made below when allowed
  }
  if (!create) return null;
  const key = randomBytes(32);
  try {
    mkdirSync(stateDir, { recursive: true, mode: 0o700 });
    writeFileSync(file, key.toString("hex"), { mode: 0o600 });
    return key;
  } catch {
    return null;
  }
}

/**
 * What must be unchanged for the last boot's answers to hold: the config text, the values it reads, Patchbay's
 * version.
 */
export function frontStamp(file: string, text: string, env: Record<string, string | undefined>, key: Buffer): string {
  const names = [...new Set([...text.matchAll(/(?<!\$)\$\{([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]))].sort();
  const version = readVersion();
  return createHmac("sha256", key)
    .update(JSON.stringify([version, file, text, names.map((n) => [n, env[n] ?? null])]))
    .digest("hex");
}

function readVersion(): string {
  try {
    return String(
      JSON.parse(readFileSync(fileURLToPath(new URL("../../package.json", import.meta.url)), "utf8")).version,
    );
  } catch {
    return "?";
  }
}

/** The config file `serve` will use: --config, PATCHBAY_CONFIG, else connectors.json from cwd upwards. */
function configFile(argv: string[], env: Record<string, string | undefined>): string | null {
  const i = argv.findIndex((a) => a === "--config" || a.startsWith("--config="));
  const given = i < 0 ? env.PATCHBAY_CONFIG : argv[i].includes("=") ? argv[i].slice("--config=".length) : argv[i + 1];
  if (given) return path.resolve(given);
  for (let dir = process.cwd(); ; dir = path.dirname(dir)) {
    const f = path.join(dir, "connectors.json");
    if (existsSync(f)) return f;
    if (path.dirname(dir) === dir) return null;
  }
}

function load(argv: string[], env: Record<string, string | undefined>): { answers: FrontAnswers; key: Buffer } | null {
  try {
    const file = configFile(argv, env);
    if (!file) return null;
    const cache = path.join(path.dirname(file), ".patchbay", "catalog.json");
    if (statSync(cache).size > MAX_CACHE_BYTES) return null;
    const answers = (JSON.parse(readFileSync(cache, "utf8")) as { front?: FrontAnswers }).front;
    if (
      !answers ||
      !Array.isArray(answers.tools) ||
      !Array.isArray(answers.protocolVersions) ||
      typeof answers.initialize?.capabilities !== "object"
    )
      return null;
    const key = stampKey(path.dirname(cache), false);
    return key && answers.stamp === frontStamp(file, readFileSync(file, "utf8"), env, key) ? { answers, key } : null;
  } catch {
    return null;
  }
}

/** The client's side of the stdio stream (process.stdin and process.stdout; a test's pipes). */
export interface FrontIo {
  input: NodeJS.ReadableStream & { readonly readableEnded: boolean };
  output: NodeJS.WritableStream;
}

/** At most this many threads are warmed for a start the head start answered (bin/patchbay.mjs caps it by cores too). */
const MAX_WARM = 4;

/**
 * Starts answering on `io` when the cache allows (a no-op otherwise). Resolves when the client
 * has had its initialize and its first lists answered, when it sends a request only the gateway
 * can answer, or after QUIET_MS: loading the CLI evaluates large modules and blocks the event loop
 * for seconds on a busy machine, so it must not start while the client still waits for a list the
 * front could answer at once; but once the client waits for the gateway itself (a tools/call, a
 * ping), every moment the load is put off is added to that wait, so it starts then. Resolves to
 * how many worker threads the last boot of this config started, to warm while the CLI loads (0
 * without a head start: then the client's initialize waits for the CLI, and warm threads would
 * take the CPU it needs).
 */
export function startFront(
  argv: string[],
  env: Record<string, string | undefined> = process.env,
  io: FrontIo = { input: process.stdin, output: process.stdout },
): Promise<number> {
  const { input, output: out } = io;
  const loaded = load(argv, env);
  if (!loaded) return Promise.resolve(0);
  const { answers, key } = loaded;
  orders = prespawnOrders(answers.prespawn, key, answers.stamp, env);
  const threads = Number.isSafeInteger(answers.threads) ? Math.min(Math.max(answers.threads!, 0), MAX_WARM) : 0;
  const expected = new Set(["initialize", "tools/list"]);
  if (answers.initialize.capabilities.prompts) expected.add("prompts/list");
  if (answers.initialize.capabilities.resources) expected.add("resources/list");
  let quiet!: () => void;
  const quieted = new Promise<void>((resolve) => (quiet = resolve));
  setTimeout(quiet, QUIET_MS).unref();
  input.once("end", () => quiet());
  const answered = (method: string) => {
    expected.delete(method);
    if (expected.size === 0) quiet();
  };
  let initRequest: Record<string, unknown> | null = null;
  const pending: string[] = [];
  let pass: PassThrough | null = null;
  const reply = (id: unknown, result: unknown) => out.write(`${JSON.stringify({ jsonrpc: "2.0", id, result })}\n`);
  const take = (line: string): void => {
    let msg: Record<string, unknown> | null = null;
    try {
      msg = JSON.parse(line) as Record<string, unknown>;
    } catch {
      /* the gateway answers a malformed line */
    }
    const params = (msg?.params ?? {}) as Record<string, unknown>;
    if (msg && msg.method === "server/discover" && msg.id !== undefined) {
      // Newer clients probe with server/discover before initialize and wait for the answer (or
      // their probe timeout, seconds) before they initialize. The gateway's MCP SDK does not know
      // the method: its answer, given now instead of after the CLI has loaded.
      return void out.write(
        `${JSON.stringify({ jsonrpc: "2.0", id: msg.id, error: { code: -32601, message: "Method not found" } })}\n`,
      );
    }
    if (msg && msg.method === "initialize" && msg.id !== undefined && !initRequest) {
      initRequest = msg;
      const asked = String(params.protocolVersion ?? "");
      const protocolVersion = answers.protocolVersions.includes(asked) ? asked : answers.protocolVersions[0];
      reply(msg.id, { protocolVersion, ...answers.initialize });
      return answered("initialize");
    }
    if (msg && msg.id !== undefined && initRequest && params.cursor === undefined) {
      // A client may wait for all its lists before it offers any tool to its model. Prompts and
      // resources come from live connectors only: empty for now, list_changed when the boot settles.
      const caps = answers.initialize.capabilities;
      const list =
        msg.method === "tools/list"
          ? { tools: answers.tools }
          : msg.method === "prompts/list" && caps.prompts
            ? { prompts: [] }
            : msg.method === "resources/list" && caps.resources
              ? { resources: [] }
              : msg.method === "resources/templates/list" && caps.resources
                ? { resourceTemplates: [] }
                : null;
      if (list) {
        reply(msg.id, list);
        return answered(String(msg.method));
      }
    }
    pending.push(line);
    // Only a notification awaits no answer: anything else here (a call, a ping, a line the gateway
    // refuses) waits for the gateway, so the CLI loads now rather than at QUIET_MS.
    if (!msg || typeof msg.method !== "string" || msg.id !== undefined) quiet();
  };
  const lines = new FrontLines((line) => {
    if (line.trim()) take(line);
  });
  const onData = (chunk: Buffer) => {
    if (pass) return void (pass.writableEnded || pass.write(chunk));
    lines.push(chunk);
    // Over the line bound the gateway would close the connection: let it start and do so now.
    if (lines.overflowed) quiet();
  };
  input.on("data", onData);
  input.on("end", () => pass?.end());
  front = {
    quieted,
    handover() {
      const p = new PassThrough();
      if (initRequest) p.write(`${JSON.stringify({ ...initRequest, id: REPLAY_ID })}\n`);
      for (const line of pending) p.write(`${line}\n`);
      pass = p;
      // A line over the bound was dropped, and nothing after it is read: the lines before it go
      // to the gateway, which then ends the connection (serve.ts), as its transport would have.
      if (lines.overflowed) p.end();
      else {
        const rest = lines.rest();
        if (rest.length > 0) p.write(rest);
        if (input.readableEnded) p.end();
      }
      const output = new Writable({
        write(chunk: Buffer | string, _enc, done) {
          const text = chunk.toString();
          // The SDK writes one message per write: drop the answer to the replayed initialize.
          if (text.includes(REPLAY_ID)) {
            try {
              if ((JSON.parse(text) as { id?: unknown }).id === REPLAY_ID) return done();
            } catch {
              /* not ours */
            }
          }
          out.write(chunk, () => done());
        },
      });
      return { input: p, output, overflowed: lines.overflowed };
    },
  };
  return quieted.then(() => threads);
}

/**
 * The servers the last boot of this config spawned, as frontPrespawns gives them, for a start with
 * no head start (`serve --http`): the same stamp and code checks, nothing answered. Its first call
 * waits for the upstream server's own start, which then begins while the CLI loads.
 */
export function savedPrespawnOrders(argv: string[], env: Record<string, string | undefined>): PrespawnOrder[] {
  const loaded = load(argv, env);
  return loaded ? prespawnOrders(loaded.answers.prespawn, loaded.key, loaded.answers.stamp, env) : [];
}

/** The servers the last boot of this config spawned, for the warm threads to start (none without a head start). */
export function frontPrespawns(): PrespawnOrder[] {
  return orders;
}

/** The streams the gateway's stdio transport should use: the front's, when it answered first. */
export function takeFront(): FrontStreams | null {
  const f = front;
  front = null;
  return f ? f.handover() : null;
}
