// `npm run build`, after tsc: bundles what runs inside every plugin worker into dist/runtime/:
// the three worker programs (thread, group thread, isolated child; one file each) and the two
// authoring modules plugins import there ("patchbay/plugin", "patchbay/adapter"), zod inlined
// into one chunk they share. Why: a worker that loads ~110 small ES modules (zod alone is 95) spends most
// of its start resolving, reading and linking them; one file per program is parsed in one go
// (measured in `npm run bench`, boot and memory figures). The host itself keeps
// running dist/ as tsc wrote it; only worker threads and children load these files.
//
// The MCP SDK modules the bundled plugins import (BUNDLED_SDK_MODULES in src/paths.ts) are bundled
// here too, from the SDK's ES build with everything it imports, into dist/runtime/mcp-sdk/: zod
// is then one copy shared with "patchbay/plugin" instead of a second one from node_modules.
// zod's locales other than English load on first use (lazy-zod-locales.mjs). Every chunk is ASCII
// (ascii-only.mjs), so V8 holds its source at one byte per character. The Client's default
// JSON Schema validator (ajv, a third of the SDK's bundle) is left out: the one plugin that uses
// the Client, mcp-remote, gives it its own (plugins/mcp-remote/src/output-validation.ts).
//
// rolldown (pinned in devDependencies; it is also vite's bundler) only joins modules: no
// minifying (readable frames when a worker fails) and no source maps (a worker enables Node's
// source-map support for the plugin's own stacks, and would parse a bundle's map on load).
import { rmSync } from "node:fs";
import { builtinModules } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "rolldown";
import { asciiOnly } from "./ascii-only.mjs";
import { namespaceGettersPlugin } from "./namespace-getters.mjs";
import { bundleOutput } from "./bundle-output.mjs";
import { lazyZodLocales } from "./lazy-zod-locales.mjs";
import { lazySdkSchemas } from "./lazy-sdk-schemas.mjs";
import { BUNDLED_SDK_MODULES } from "../dist/paths.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const dist = path.join(root, "dist");
const out = path.join(dist, "runtime");

/**
 * Node's built-ins stay imports. So does any other package our own code imports (loaded where it
 * is installed), except zod, which is inlined; a package the SDK imports is inlined with it.
 */
const external = (id, importer) =>
  id.startsWith("node:") ||
  builtinModules.includes(id) ||
  (!id.startsWith(".") &&
    !path.isAbsolute(id) &&
    !/^zod(\/|$)/.test(id) &&
    !!importer &&
    !importer.includes(`${path.sep}node_modules${path.sep}`));

/** Each SDK module's ES build, named by where it lands: mcp-sdk/client/index for client/index.js. */
const sdkInputs = Object.fromEntries(
  BUNDLED_SDK_MODULES.map((m) => [
    `mcp-sdk/${m.replace(/\.js$/, "")}`,
    fileURLToPath(import.meta.resolve(`@modelcontextprotocol/sdk/${m}`)),
  ]),
);

/** The SDK Client's import of its ajv validator, as a stand-in that says what to do if it is built. */
function clientWithoutAjv() {
  const STAND_IN = "\0patchbay-sdk-no-ajv";
  const clientIndex = fileURLToPath(import.meta.resolve("@modelcontextprotocol/sdk/client/index.js"));
  return {
    name: "sdk-client-without-ajv",
    resolveId: (id, importer) =>
      id === STAND_IN || (id === "../validation/ajv-provider.js" && importer === clientIndex) ? STAND_IN : null,
    load: (id) =>
      id === STAND_IN
        ? `export class AjvJsonSchemaValidator {\n  constructor() {\n    throw new Error("The MCP SDK bundled for Patchbay's plugins carries no ajv: give the Client a jsonSchemaValidator (as plugins/mcp-remote does).");\n  }\n}\n`
        : null,
  };
}

rmSync(out, { recursive: true, force: true });
// Each worker program on its own, one file with no chunk: they share no module a thread needs
// twice, and a thread that loaded entry.js and its three chunks spent ~1 ms more of its start
// resolving, reading and linking them (measured on Node 20) than it does loading one file.
for (const program of ["group-entry", "process-entry"]) {
  await build({
    input: { [program]: path.join(dist, "worker", `${program}.js`) },
    platform: "node",
    external,
    plugins: [namespaceGettersPlugin(), asciiOnly()],
    logLevel: "warn",
    output: bundleOutput(out),
  });
}
// A plugin thread's program as CommonJS (entry.cjs), and what tinypool loads, entry.js, which runs
// it from a V8 code cache (src/worker/thread-entry.ts says why).
await build({
  input: { entry: path.join(dist, "worker", "entry.js") },
  platform: "node",
  external,
  plugins: [namespaceGettersPlugin(), asciiOnly()],
  logLevel: "warn",
  output: { ...bundleOutput(out, "[name].cjs"), format: "cjs", exports: "named" },
});
await build({
  input: { entry: path.join(dist, "worker", "thread-entry.js") },
  platform: "node",
  external,
  plugins: [namespaceGettersPlugin(), asciiOnly()],
  logLevel: "warn",
  output: bundleOutput(out),
});
await build({
  input: {
    plugin: path.join(dist, "plugin.js"),
    adapter: path.join(dist, "adapter-sdk", "index.js"),
    ...sdkInputs,
  },
  platform: "node",
  external,
  plugins: [lazyZodLocales(), lazySdkSchemas(), clientWithoutAjv(), namespaceGettersPlugin(), asciiOnly()],
  logLevel: "warn",
  output: bundleOutput(out),
});

// "patchbay/plugin" once more, as one CommonJS file (plugin.cjs): the same modules, zod inlined,
// for a thread whose plugin imports no other module of this bundle (src/worker/runtime-twin.ts).
// Why: a script, unlike an ES module, can be run with V8's code cache on Node 20, which lacks
// module.enableCompileCache; compiling zod was ~6 ms of each worker's start there (measured).
await build({
  input: { plugin: path.join(dist, "plugin.js") },
  platform: "node",
  external,
  plugins: [lazyZodLocales(), namespaceGettersPlugin(), asciiOnly()],
  logLevel: "warn",
  output: { ...bundleOutput(out, "[name].cjs"), format: "cjs" },
});
