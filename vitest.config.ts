import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const src = (p: string) => fileURLToPath(new URL(`./src/${p}`, import.meta.url));

export default defineConfig({
  resolve: {
    // The package is published as patchbay-host; plugins and tests import it as "patchbay".
    alias: [
      { find: /^patchbay\/plugin$/, replacement: src("plugin.ts") },
      { find: /^patchbay\/adapter$/, replacement: src("adapter-sdk/index.ts") },
      { find: /^patchbay\/testing$/, replacement: src("testing/index.ts") },
      { find: /^patchbay$/, replacement: src("index.ts") },
    ],
  },
  test: {
    include: ["tests/**/*.test.ts", "plugins/*/tests/**/*.test.ts"],
    // A timeout only turns a hang into a failure: tests wait on markers, never on the clock. On a
    // loaded 2-core machine (other suites beside this one) a test that starts workers, hosts and
    // CLI processes runs several times slower than on a quiet one, so the bound is generous.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Worker-thread tests start real workers; two cores, so keep files from starving each other.
    fileParallelism: true,
    maxWorkers: 2,
  },
});
