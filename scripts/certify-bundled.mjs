#!/usr/bin/env node
// Maintainers: re-certify a bundled adapter INTO its plugin folder (what ships), e.g.
//   node scripts/certify-bundled.mjs claude-code /opt/patchbay-ci/claude-code/node_modules/.bin/claude
// Operators use `patchbay adapter certify`, which writes to .patchbay/certification/ instead.
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const [adapter, client] = process.argv.slice(2);
if (!adapter || !client) {
  process.stderr.write("usage: node scripts/certify-bundled.mjs <bundled adapter> <client binary>\n");
  process.exit(2);
}
const { certifyAdapter } = await import(new URL("../dist/adapter/certify/certify.js", import.meta.url).href);
const dir = mkdtempSync(path.join(os.tmpdir(), "patchbay-certify-cfg-"));
const config = path.join(dir, "connectors.json");
const plugins = fileURLToPath(new URL("../plugins", import.meta.url));
writeFileSync(config, JSON.stringify({ plugins: [plugins], adapters: { [adapter]: { plugin: adapter, config: {} } } }));
const report = await certifyAdapter({ adapter, client, config, env: process.env, into: "plugin" });
for (const e of report.entries) process.stdout.write(`${e.result} ${e.capability} ${e.fixture}\n`);
process.exit(report.entries.every((e) => e.result === "pass") ? 0 : 1);
