/**
 * `patchbay/testing`: conformance kits for plugin authors, one per kind.
 *
 * A kit boots the plugin exactly as the host does (createHost() with an object connectors.json
 * naming one instance, "<section>/kit", in its own worker behind the guard), then checks named
 * claims: the contract rules of its kind plus, for every kind, Airbyte's rule that an invalid
 * config makes health_check answer false (not hang, not throw).
 *
 *   // plugins/my-store/tests/conformance.test.ts (vitest)
 *   import { registerConformance } from "patchbay/testing";
 *   await registerConformance("memory-store", {
 *     plugin: new URL("..", import.meta.url).pathname,       // the plugin folder (or a plugin name)
 *     config: { path: "kit/memory.db" },                      // healthy
 *     invalidConfig: { path: "/dev/null/memory.db" },         // schema-valid, substrate broken
 *   });
 *
 *   // without vitest (what `patchbay plugin test` runs):
 *   const results = await runConformance("memory-store", options);
 *   // → [{ claim, ok, reason, skipped?, ms }, ...] in order; never throws for a plugin's failure
 *
 * Signatures:
 *   registerConformance(kind: KitKind, opts: ConformanceOptions): Promise<void>
 *   runConformance(kind: KitKind, opts: ConformanceOptions): Promise<ClaimResult[]>
 *   conformanceKit(kind: KitKind): Claim[]
 *     (and memoryStoreKit(), localModelKit(), mcpKit(), agentKit(), skillStoreKit())
 * `opts.plugin` is a plugin folder, or a plugin name found through `opts.connectors` (a
 * connectors.json, which can also supply the valid config) or among the bundled plugins.
 * registerConformance imports vitest only when called, so this module loads without it.
 */
export { createHost } from "../host/host.js";
export { registerConformance, runConformance } from "./run.js";
export { agentKit, conformanceKit, localModelKit, mcpKit, memoryStoreKit, skillStoreKit } from "./kits/index.js";
export {
  KIT_KINDS,
  type Claim,
  type ClaimResult,
  type ConformanceOptions,
  type InvalidHealth,
  type KitContext,
  type KitKind,
  type ToolCall,
} from "./types.js";
export {
  adapterConformance,
  registerAdapterConformance,
  runAdapterConformance,
  type AdapterClaim,
  type AdapterKit,
  type AdapterKitOptions,
} from "./adapter-kit.js";
