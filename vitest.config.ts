import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";

const src = (p: string) => fileURLToPath(new URL(`./src/${p}`, import.meta.url));

/**
 * Files that run for minutes (an external conformance suite, a nested vitest, a real client),
 * longest first. Vitest orders by the durations it cached, but a fresh clone (CI) has no cache and
 * falls back to file size, which started the 9-minute conformance run last and left one worker
 * idle beside it for the whole of it. These start first; the rest keep vitest's order.
 */
const LONG_RUNNING = [
  "tests/mcp/conformance.test.ts",
  "tests/scaffold/templates.test.ts",
  "tests/adapters/real-client.test.ts",
  "tests/mcp/failures.test.ts",
  "tests/adapters/install.test.ts",
];

class LongRunningFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (f: TestSpecification) => {
      const i = LONG_RUNNING.findIndex((p) => f.moduleId.endsWith(p));
      return i === -1 ? LONG_RUNNING.length : i;
    };
    const sorted = await super.sort(files);
    return sorted
      .map((f, i) => ({ f, i }))
      .sort((a, b) => rank(a.f) - rank(b.f) || a.i - b.i)
      .map(({ f }) => f);
  }
}

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
    sequence: { sequencer: LongRunningFirst },
  },
});
