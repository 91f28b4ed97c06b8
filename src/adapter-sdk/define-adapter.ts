/**
 * defineAdapter(): the adapter author's entry point. It returns a definePlugin-compatible object
 * of kind "adapter" whose create() validates the manifest against the methods the author
 * returned, then exposes those methods plus manifest(). Validation runs at create() — inside
 * the worker at load — so a bad manifest fails that instance's load with a message naming the
 * key, and every `true` is backed: a guard without denyOutcome or a context capability without
 * injectOutcome is refused instead of silently allowing or dropping (the reference system's gap).
 *
 * The checks themselves are validate.ts; the definition's types and the standard config keys are
 * define.ts.
 *
 * This lives in adapter-sdk/ (a leaf) because `patchbay/adapter` exports it to plugin workers.
 */
import { z } from "zod";
import type { PluginContext } from "../plugin.js";
import {
  STANDARD_ADAPTER_CONFIG,
  type AdapterDefinition,
  type AdapterInstance,
  type DefinedAdapter,
} from "./define.js";
import { usage, validateAdapter } from "./validate.js";

export function defineAdapter<S extends z.ZodObject = z.ZodObject<Record<never, never>>>(
  definition: AdapterDefinition<S>,
): DefinedAdapter<S> {
  const own = definition.config ?? z.strictObject({});
  if (typeof (own as { extend?: unknown }).extend !== "function")
    throw usage("adapter config must be a z.object({...}) (the standard keys are added to it)", "config");
  const clash = Object.keys(STANDARD_ADAPTER_CONFIG).filter((k) => Object.hasOwn((own as z.ZodObject).shape ?? {}, k));
  if (clash.length > 0)
    throw usage(`adapter config must not redefine the standard keys ${clash.join(", ")}`, `config.${clash[0]}`);
  const config = (own as z.ZodObject).extend(STANDARD_ADAPTER_CONFIG);
  const defined = {
    kind: "adapter" as const,
    config,
    definition,
    async create(cfg: unknown, ctx: PluginContext): Promise<AdapterInstance> {
      const methods = await definition.create(cfg as never, ctx);
      const manifest = validateAdapter(definition, methods);
      const instance: Record<string, unknown> = { health_check: async () => true };
      for (const [name, fn] of Object.entries(methods as unknown as Record<string, unknown>)) {
        if (typeof fn === "function") instance[name] = (fn as (...a: unknown[]) => unknown).bind(methods);
      }
      instance.manifest = () => manifest;
      return instance as unknown as AdapterInstance;
    },
    [Symbol.for("patchbay.plugin")]: true as const,
  };
  return Object.freeze(defined) as unknown as DefinedAdapter<S>;
}
