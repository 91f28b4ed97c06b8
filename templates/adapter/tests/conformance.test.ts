/**
 * The adapter conformance kit, under vitest: every claim checked against this adapter loaded
 * exactly as Patchbay loads it (its own worker, the checked boundary), with install claims run in
 * a sandbox (temp HOME and project, a fake `__NAME__` binary on PATH printing
 * test.config.json's clientVersionOutput). `npx patchbay plugin test <this folder>` runs the
 * same claims without vitest. Add tests of your own protocol next to this file.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { registerAdapterConformance } from "patchbay/testing";

const fixture = JSON.parse(readFileSync(new URL("../test.config.json", import.meta.url), "utf8"));

await registerAdapterConformance({ ...fixture, pluginDir: fileURLToPath(new URL("..", import.meta.url)) });
