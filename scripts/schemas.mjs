#!/usr/bin/env node
// Writes or checks schemas/*.schema.json, generated from the zod sources.
//   node scripts/schemas.mjs write   (npm run schemas)
//   node scripts/schemas.mjs check   (npm run schemas:check): exit 1 naming each stale file
// It imports the compiled generator from dist/, so run `npm run build` first; the generator
// (src/config/json-schema.ts) is shared with tests/config/schemas.test.ts, which checks the
// same bytes straight from src/.
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const generator = path.join(root, "dist/config/json-schema.js");
// The sources the generated schemas depend on: if any is newer than dist/, dist is stale.
const sources = [
  "src/config/json-schema.ts",
  "src/config/schema.ts",
  "src/contract/manifest.ts",
  "src/contract/kinds.ts",
  "src/contract/names.ts",
];

const mode = process.argv[2];
if (mode !== "write" && mode !== "check") {
  console.error("usage: node scripts/schemas.mjs write|check");
  process.exit(2);
}

const built = await mtime(generator);
if (built === null) {
  console.error(`${path.relative(root, generator)} is missing: run \`npm run build\` first.`);
  process.exit(1);
}
for (const source of sources) {
  const changed = await mtime(path.join(root, source));
  if (changed !== null && changed > built) {
    console.error(
      `warning: ${source} is newer than dist/: run \`npm run build\` first, or the result reflects the old source.`,
    );
    break;
  }
}

const { schemaFiles } = await import(pathToFileURL(generator).href);
let stale = 0;
for (const { path: rel, text } of schemaFiles()) {
  const file = path.join(root, rel);
  if (mode === "write") {
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, text);
    console.log(`wrote ${rel}`);
  } else if ((await readFile(file, "utf8").catch(() => null)) !== text) {
    console.error(`${rel} is stale: run \`npm run build && npm run schemas\` and commit the result.`);
    stale++;
  }
}
if (mode === "check" && stale === 0) console.log("schemas are up to date");
process.exit(stale > 0 ? 1 : 0);

async function mtime(file) {
  try {
    return (await stat(file)).mtimeMs;
  } catch {
    return null;
  }
}
