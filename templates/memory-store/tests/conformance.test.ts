/**
 * The __KIND__ conformance kit, under vitest: every claim of the contract, checked against this
 * plugin loaded exactly as Patchbay loads it (its own worker, the checked boundary, config
 * validation). `npx patchbay plugin test <this folder>` runs the same claims without vitest,
 * with the same test.config.json. Add tests of your own logic next to this file.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { registerConformance } from "patchbay/testing";

const fixture = JSON.parse(readFileSync(new URL("../test.config.json", import.meta.url), "utf8"));

await registerConformance("__KIND__", { ...fixture, plugin: fileURLToPath(new URL("..", import.meta.url)) });
