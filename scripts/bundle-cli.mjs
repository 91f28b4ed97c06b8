// `npm run build`, after tsc: bundles the `patchbay` command (dist/cli/main.js and what it loads)
// into dist/cli-bundle/, which bin/patchbay.mjs runs. Why: the CLI's host path loads ~350 small
// ES and CommonJS modules (zod, the MCP SDK, ajv, semver and dist/ itself); resolving, reading and
// linking them one by one was most of `serve`'s start and of `npm start` (measured in
// `npm run bench`: CLI, gateway and peer figures). Commands stay separate chunks, loaded when run.
//
// Embedders keep importing dist/ as tsc wrote it; only the command runs the bundle. Left out of
// it: packages that find files of their own at run time or are native (jiti, tinypool, pino,
// better-sqlite3, pg), and stdio-front.js, which bin/patchbay.mjs loads before the CLI: the CLI
// takes the stream over from that very module instance, so it must not get a copy of its own; and
// spawn/warm-threads.js, for the same reason: the CLI takes the threads bin/ started there.
// The bundle sits at the same depth as dist/cli/, so paths built from import.meta.url still hold.
// Like the worker bundle: no minifying (readable stacks) and no source maps.
//
// It also bundles the demo MCP server's stdio entry into dist/servers/demo-mcp.mjs, which
// servers/demo-mcp.mjs runs when present: the default connectors.json starts that server, and
// loading the SDK and zod module by module was the longest stretch of `npm start`.
import { rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "rolldown";
import { bundleOutput } from "./bundle-output.mjs";
import { lazySdkSchemas } from "./lazy-sdk-schemas.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const dist = path.join(root, "dist");
const out = path.join(dist, "cli-bundle");
const frontModule = path.join(dist, "gateway", "stdio-front.js");
const warmModule = path.join(dist, "spawn", "warm-threads.js");

const OWN_FILES = /^(jiti|tinypool|pino|better-sqlite3|pg)(\/|$)/;

rmSync(out, { recursive: true, force: true });
await build({
  input: { main: path.join(dist, "cli", "main.js") },
  platform: "node",
  external: (id, importer) => {
    if (id.startsWith("node:")) return true;
    if (id.startsWith(".") && importer)
      return [frontModule, warmModule].includes(path.resolve(path.dirname(importer), id));
    return !path.isAbsolute(id) && OWN_FILES.test(id);
  },
  makeAbsoluteExternalsRelative: true,
  plugins: [lazySdkSchemas()],
  logLevel: "warn",
  output: bundleOutput(out),
});

// The entry is a virtual module: a file of its own in servers/ would be one more thing to run by hand.
const servers = path.join(dist, "servers");
const source = path.join(root, "servers", "demo-server.mjs");
const ENTRY = "\0demo-mcp-entry";
const unused = (what) =>
  `throw new Error("The bundled demo MCP server carries no ${what}: run servers/demo-server.mjs for the SDK as published.")`;
/** What the demo server's bundle has instead of these SDK imports (see the demo-mcp-slim plugin below). */
const STAND_INS = {
  "../validation/ajv-provider.js": `export class AjvJsonSchemaValidator { getValidator() { ${unused("JSON Schema validator (it never elicits)")}; } }`,
  "zod/v3": `export function object() { ${unused("zod 3 (its schemas are zod 4)")}; }`,
  "zod-to-json-schema": `export function zodToJsonSchema() { ${unused("zod 3 (its schemas are zod 4)")}; }`,
};
rmSync(servers, { recursive: true, force: true });
await build({
  input: { "demo-mcp": ENTRY },
  platform: "node",
  external: (id) => id.startsWith("node:"),
  plugins: [
    {
      name: "demo-mcp-entry",
      resolveId: (id) => (id === ENTRY ? id : null),
      load: (id) =>
        id === ENTRY ? `import { serveStdio } from ${JSON.stringify(source)};\nawait serveStdio();\n` : null,
    },
    {
      // Parts of the SDK the demo server never runs, each a large share of this bundle compiled
      // at every start (on the critical path of `npm start`), replaced by stand-ins that say so
      // if they are ever reached: ajv, which the SDK's Server builds for one job (checking a
      // client's answer to an elicitation, and the demo server never elicits), and zod 3 with
      // its JSON Schema converter (the demo server's schemas are zod 4). 750 KB became ~360 KB.
      name: "demo-mcp-slim",
      resolveId: (id, importer) =>
        importer?.includes(`${path.sep}@modelcontextprotocol${path.sep}sdk${path.sep}`) && id in STAND_INS
          ? `\0demo-mcp-stand-in:${id}`
          : null,
      load: (id) => (id.startsWith("\0demo-mcp-stand-in:") ? STAND_INS[id.slice("\0demo-mcp-stand-in:".length)] : null),
    },
    lazySdkSchemas(),
  ],
  logLevel: "warn",
  output: bundleOutput(servers, "[name].mjs"),
});
