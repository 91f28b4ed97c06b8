import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const src = (p: string) => fileURLToPath(new URL(`./src/${p}`, import.meta.url));

export default defineConfig({
  resolve: {
    alias: {
      "patchbay/plugin": src("plugin.ts"),
      "patchbay/adapter": src("adapter-sdk/index.ts"),
      "patchbay/testing": src("testing/index.ts"),
    },
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
