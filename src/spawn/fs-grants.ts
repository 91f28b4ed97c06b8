/**
 * A manifest's `permissions.fs` may name config fields: `"${config.dir}"` grants whatever folder
 * the instance's config names, so a process-isolated store can reach its data without the
 * author knowing the path in advance. Resolved from the instance's config (after ${VAR}
 * interpolation), before anything runs; a field that is absent or not a string grants nothing.
 */
const CONFIG_REF = /^\$\{config\.([A-Za-z0-9_.]+)\}(.*)$/;

export function expandFsGrants(declared: readonly string[], config: Readonly<Record<string, unknown>>): string[] {
  const out: string[] = [];
  for (const entry of declared) {
    const ref = CONFIG_REF.exec(entry);
    if (!ref) {
      out.push(entry);
      continue;
    }
    const value = ref[1]
      .split(".")
      .reduce<unknown>(
        (v, key) => (v && typeof v === "object" ? (v as Record<string, unknown>)[key] : undefined),
        config,
      );
    if (typeof value === "string" && value !== "" && !value.startsWith(":")) out.push(value + ref[2]);
  }
  return out;
}
