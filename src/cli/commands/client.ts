/**
 * `patchbay client add|list|revoke`: the gateway's static clients in connectors.json. `add` makes
 * a random token, prints it once and writes only its SHA-256; nothing else ever holds the token.
 * After a change the running `patchbay serve` of this config is asked to read its clients again
 * (control op `clients-reload`), so a new client works and a revoked token is refused on its next
 * request, open sessions included, with no restart. Without a running serve the file alone changes.
 */
import { randomBytes, createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { writeFileAtomic } from "../../adapter/fs-atomic.js";
import { CLIENT_ID_PATTERN } from "../../config/gateway-clients-schema.js";
import { resolveConfigValue } from "../../config/load.js";
import { parseConfigText, resolveConfigPath } from "../../config/source.js";
import { EXIT, fromWire, pbError, type ExitCode, type WireError } from "../../errors.js";
import { askServer } from "../../gateway/control.js";
import { configCeilingErrors } from "../../gateway/clients/ceiling.js";
import { scanPlugins } from "../../discovery/scan.js";
import { bundledPluginsDir } from "../../paths.js";
import { stateDir } from "../../gateway/state-dir.js";
import { allowFlags, flagString, type ParsedArgs } from "../args.js";
import type { Output } from "../render.js";
import { parseExposeFlag, parseLimit } from "./client-flags.js";
import { clientRows, renderClientRows } from "./client-rows.js";

type Json = Record<string, unknown>;

export async function clientAddCommand(args: ParsedArgs, io: Output): Promise<ExitCode> {
  allowFlags(args, "client add", ["json", "expose", "calls-per-minute", "concurrent", "metrics"]);
  const id = oneId(args, "add");
  const { file, doc } = await readDoc(args);
  const gateway = objectAt(doc, "gateway");
  const clients = objectAt(gateway, "clients");
  if (Object.hasOwn(clients, id) || Object.hasOwn(peek(peek(gateway, "oauth"), "clients"), id))
    throw pbError(
      "PB_ERR_USAGE",
      `A client "${id}" is already in ${file} (/gateway/clients/${id}).`,
      { file, client: id },
      `Pick another id, or revoke it first: \`patchbay client revoke ${id}\`.`,
    );
  const expose = parseExposeFlag(flagString(args, "expose"), doc);
  const callsPerMinute = parseLimit(args, "calls-per-minute");
  const concurrent = parseLimit(args, "concurrent");
  // 32 random bytes, base64url: 256 bits, and no character a shell or a header needs quoted.
  const token = `pbc_${randomBytes(32).toString("base64url")}`;
  const entry: Json = { tokenSha256: createHash("sha256").update(token).digest("hex"), expose };
  if (callsPerMinute !== undefined || concurrent !== undefined)
    entry.limits = {
      ...(callsPerMinute !== undefined && { callsPerMinute }),
      ...(concurrent !== undefined && { concurrent }),
    };
  if (args.flags.metrics === true) entry.metrics = true;
  clients[id] = entry;
  await checkAndWrite(file, doc);
  const served = await tellServer(file);
  if (args.flags.json) {
    io.out(JSON.stringify({ id, token, tokenSha256: entry.tokenSha256, file, served }, null, 2));
    return EXIT.OK;
  }
  io.out(`Client "${id}" added to ${file} (only the token's SHA-256 is written).`);
  io.out(`Its token, shown this once:\n\n  ${token}\n`);
  io.out(`The client sends it as "Authorization: Bearer <token>".`);
  io.err(servedLine(served, file));
  return EXIT.OK;
}

export async function clientListCommand(args: ParsedArgs, io: Output): Promise<ExitCode> {
  allowFlags(args, "client list", ["json"]);
  if (args.positionals.length > 0) throw pbError("PB_ERR_USAGE", "client list takes no arguments.");
  const { file, doc } = await readDoc(args);
  const rows = clientRows(peek(doc, "gateway"));
  if (args.flags.json) io.out(JSON.stringify({ file, clients: rows }, null, 2));
  else io.out(renderClientRows(rows, file));
  return EXIT.OK;
}

export async function clientRevokeCommand(args: ParsedArgs, io: Output): Promise<ExitCode> {
  allowFlags(args, "client revoke", ["json"]);
  const id = oneId(args, "revoke");
  const { file, doc } = await readDoc(args);
  const gateway = peek(doc, "gateway");
  const owners = [peek(gateway, "clients"), peek(peek(gateway, "oauth"), "clients")];
  const owner = owners.find((o) => Object.hasOwn(o, id));
  if (!owner)
    throw pbError(
      "PB_ERR_CLIENT_UNKNOWN",
      `No client "${id}" in ${file} (neither gateway.clients nor gateway.oauth.clients has it).`,
      { file, client: id },
      "Use a client id from `patchbay client list`.",
    );
  delete owner[id];
  await checkAndWrite(file, doc);
  const served = await tellServer(file);
  if (args.flags.json) io.out(JSON.stringify({ id, file, revoked: true, served }, null, 2));
  else {
    io.out(`Client "${id}" revoked in ${file}.`);
    io.err(servedLine(served, file));
  }
  return EXIT.OK;
}

function oneId(args: ParsedArgs, verb: string): string {
  const [id, ...rest] = args.positionals;
  if (!id || rest.length > 0)
    throw pbError("PB_ERR_USAGE", `client ${verb} takes one client id, e.g. \`patchbay client ${verb} ci-bot\`.`);
  if (!new RegExp(`^${CLIENT_ID_PATTERN}$`).test(id) || id === "operator")
    throw pbError(
      "PB_ERR_USAGE",
      `"${id.slice(0, 80)}" is not a client id: use 1–64 letters, digits, ".", "_" or "-", starting with a letter or digit ("operator" is reserved).`,
      { client: id.slice(0, 80) },
    );
  return id;
}

async function readDoc(args: ParsedArgs): Promise<{ file: string; doc: Json }> {
  const file = resolveConfigPath({ config: flagString(args, "config") }).file;
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? "error";
    throw pbError("PB_ERR_CONFIG_NOT_FOUND", `Cannot read ${file} (${code}).`, { file, searched: [file] });
  }
  const doc = parseConfigText(text, file);
  if (!doc || typeof doc !== "object" || Array.isArray(doc))
    throw pbError("PB_ERR_CONFIG_INVALID", `${file} is not a JSON object.`, { file, issues: [] });
  return { file, doc: doc as Json };
}

/** The object at `key` of `parent`, created when absent (so `add` works on a config with no gateway yet). */
function objectAt(parent: Json, key: string): Json {
  const v = parent[key];
  if (v && typeof v === "object" && !Array.isArray(v)) return v as Json;
  if (v !== undefined)
    throw pbError("PB_ERR_CONFIG_INVALID", `connectors.json: "${key}" must be an object.`, { issues: [] });
  const created: Json = {};
  parent[key] = created;
  return created;
}

/** The object at `key`, or an empty one (not added to the document). */
function peek(parent: Json, key: string): Json {
  const v = parent[key];
  return v && typeof v === "object" && !Array.isArray(v) ? (v as Json) : {};
}

/**
 * Validates the changed document as boot would before writing it, so the file never becomes
 * unbootable. Variables this shell does not set stand in as distinct placeholders: the shape and
 * the client rules are checked, not the values only the serve's environment holds.
 */
async function checkAndWrite(file: string, doc: Json): Promise<void> {
  const env = new Proxy(process.env, {
    get: (target, name) =>
      typeof name === "string" ? (target[name] ?? `unset-${name}-stand-in-for-checking`) : undefined,
  });
  const config = resolveConfigValue(structuredClone(doc), { file, dir: path.dirname(file), env });
  // serve refuses to start when a client names more than the gateway exposes: refused here instead.
  const beyond = configCeilingErrors(config, scanPlugins(config.pluginDirs, bundledPluginsDir()));
  if (beyond.length > 0)
    throw pbError(
      "PB_ERR_CONFIG_INVALID",
      `${file} was not changed: serve would refuse to start with it.\n${beyond.map((e) => `  - ${e.message}`).join("\n")}`,
      { file, problems: beyond.map((e) => e.data) },
      beyond[0]!.hint,
    );
  writeFileAtomic(file, `${JSON.stringify(doc, null, 2)}\n`);
}

type Served = { clients: number; ended: number } | "no-serve";

async function tellServer(file: string): Promise<Served> {
  const answer = await askServer(stateDir(file), { op: "clients-reload" });
  if (!answer) return "no-serve";
  if (answer.ok) return answer.value as Served;
  const err = fromWire(answer.error as WireError);
  // A `serve --mcp` of this config has no HTTP clients to reload; the next `serve --http` reads the file.
  if (err.code === "PB_ERR_USAGE") return "no-serve";
  throw err;
}

function servedLine(served: Served, file: string): string {
  if (served === "no-serve")
    return `patchbay: no \`patchbay serve\` runs for ${file}; it reads the clients when it starts.`;
  return `patchbay: the running serve now has ${served.clients} client(s)${served.ended ? `; ${served.ended} session(s) of a removed client ended` : ""}.`;
}
