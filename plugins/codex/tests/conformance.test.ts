/**
 * The adapter conformance kit, run against this real adapter: its own worker behind the checked
 * boundary, install claims in a sandbox (temp HOME and project, a fake client binary printing
 * test.config.json's clientVersionOutput). `patchbay plugin test` runs the same claims.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { registerAdapterConformance } from "patchbay/testing";

const fixture = JSON.parse(readFileSync(new URL("../test.config.json", import.meta.url), "utf8"));

await registerAdapterConformance({ ...fixture, pluginDir: fileURLToPath(new URL("..", import.meta.url)) });
