/**
 * plugin.json: the zod schema (source of schemas/plugin.schema.json) and its type.
 */
import { z } from "zod";
import { KINDS } from "./kinds.js";
import { portableNameProblem } from "./names.js";

export { PLUGIN_API_VERSION } from "./api-version.js";

const portableName = z.string().superRefine((value, ctx) => {
  const problem = portableNameProblem(value);
  if (problem) ctx.addIssue({ code: "custom", message: `name ${problem}` });
});

export const ManifestSchema = z
  .strictObject({
    $schema: z.string().optional(),
    name: portableName.meta({ description: "The plugin's name; instances in connectors.json refer to it." }),
    version: z
      .string()
      .regex(/^\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]+)?$/, "version must be semver, e.g. 1.0.0")
      .meta({ description: "The plugin's own version (semver)." }),
    kind: z.enum(KINDS).meta({ description: "Which contract the plugin implements." }),
    entry: z
      .string()
      .min(1)
      .meta({ description: "Module inside the plugin folder whose default export is definePlugin(...)." }),
    patchbay: z
      .string()
      .min(1)
      .meta({ description: "Semver range of the Patchbay plugin API the plugin was written for, e.g. ^1." }),
    description: z.string().optional(),
    capabilities: z
      .array(z.string())
      .default([])
      .meta({ description: "Optional contract methods the plugin implements (e.g. write, get, embed, agent_status)." }),
    modes: z
      .array(z.string().regex(/^[a-z][a-z0-9_-]{0,63}$/, "a mode is lower-case letters, digits, '_' and '-'"))
      .min(1)
      .optional()
      .meta({
        description:
          'memory-store only: the query modes the plugin answers ("fts", "semantic", "rerank" or its own). Default ["fts"]. The host refuses any other mode.',
      }),
    filters: z
      .array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, "a filter key is letters, digits and '_'"))
      .optional()
      .meta({
        description:
          "memory-store only: the query filter keys the plugin understands beyond query, limit and mode. Default []. The host refuses any other key instead of letting it be silently dropped.",
      }),
    requires: z
      .array(z.string())
      .default([])
      .meta({ description: "Other instances (section/name) the plugin may call through ctx.connectors." }),
    permissions: z
      .strictObject({
        env: z
          .array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/))
          .default([])
          .meta({ description: "Environment variables the worker's process.env may hold." }),
        net: z.array(z.string()).default([]).meta({ description: "Hosts the plugin talks to (declared for review)." }),
        fs: z.array(z.string()).default([]).meta({
          description:
            'Paths the plugin reads or writes, relative ones resolved against connectors.json\'s folder. "${config.dir}" names the path an instance\'s config field holds. Declared for review; for an instance with "isolation": "process" they are the only paths outside its folder it may read or write.',
        }),
      })
      .default({ env: [], net: [], fs: [] }),
  })
  .meta({ title: "Patchbay plugin.json", description: "The manifest of one Patchbay plugin folder." });

export type Manifest = z.output<typeof ManifestSchema>;

/** Keys every memory query has; a plugin's `filters` add to them. */
export const CORE_QUERY_KEYS: readonly string[] = Object.freeze(["query", "limit", "mode"]);

/** The query modes a memory-store plugin answers ("fts" when plugin.json does not say). */
export function declaredModes(manifest: Pick<Manifest, "modes">): string[] {
  return manifest.modes ? [...manifest.modes] : ["fts"];
}

/** The filter keys a memory-store plugin understands beyond query, limit and mode. */
export function declaredFilters(manifest: Pick<Manifest, "filters">): string[] {
  return manifest.filters ? [...manifest.filters] : [];
}
