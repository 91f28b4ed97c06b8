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
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Worker-thread tests start real workers; two cores, so keep files from starving each other.
    fileParallelism: true,
    maxWorkers: 2,
  },
});
