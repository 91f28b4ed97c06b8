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
  logLevel: "warn",
  output: bundleOutput(out),
});

// The entry is a virtual module: a file of its own in servers/ would be one more thing to run by hand.
const servers = path.join(dist, "servers");
const source = path.join(root, "servers", "demo-server.mjs");
const ENTRY = "\0demo-mcp-entry";
const NO_AJV = "\0demo-mcp-no-ajv";
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
      // The SDK's Server builds an ajv instance (with ajv-formats) for one job: checking a
      // client's answer to an elicitation request against the requested schema. The demo server
      // never elicits, and ajv was a third of this bundle: ~240 KB compiled at every start, on
      // the critical path of `npm start`. A stand-in that says so if it is ever asked.
      name: "demo-mcp-no-ajv",
      resolveId: (id, importer) =>
        id === "../validation/ajv-provider.js" && importer?.includes(`${path.sep}@modelcontextprotocol${path.sep}`)
          ? NO_AJV
          : null,
      load: (id) =>
        id === NO_AJV
          ? `export class AjvJsonSchemaValidator {\n  getValidator() {\n    throw new Error("The bundled demo MCP server validates no JSON Schema (it never elicits): run servers/demo-server.mjs for the SDK's ajv validator.");\n  }\n}\n`
          : null,
    },
  ],
  logLevel: "warn",
  output: bundleOutput(servers, "[name].mjs"),
});
