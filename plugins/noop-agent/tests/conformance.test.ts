/**
 * noop-agent against the agent kit, booted by the host like any plugin. It has no substrate, so
 * no config can make it unhealthy: the invalid-config claim is reported skipped, with that reason.
 */
import { fileURLToPath } from "node:url";
import { registerConformance } from "patchbay/testing";

await registerConformance("agent", {
  plugin: fileURLToPath(new URL("..", import.meta.url)),
  config: { agents: ["perry"] },
  invalidConfig: null,
  invalidConfigReason: "noop-agent delivers nowhere, so no config can break a substrate",
});
