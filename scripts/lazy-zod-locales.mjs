// A rolldown plugin for the worker runtime's bundle (scripts/bundle-runtime.mjs): zod's 63 locales
// are ~70% of "patchbay/plugin", which re-exports zod's whole `z`, so no bundler can leave them
// out, and every worker parsed them at its start (~20 ms of CPU each, measured on Node 20) for a
// namespace almost no plugin reads. Here `z.locales` (and `z.core.locales`) becomes an object of getters that load
// zod's own CommonJS locales on first use, synchronously, as the namespace was: `z.config(
// z.locales.de())` works as before. English, zod's default, stays inlined (zod imports it
// directly). tests/boot/runtime-bundle.test.ts holds `z` and `z.locales` to zod's own.
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const LAZY = "\0patchbay-lazy-zod-locales";
/** The line this replaces in both zod modules that have it (`z.locales`, `z.core.locales`); a zod that changed either fails the build. */
const EAGER = 'export * as locales from "../locales/index.js";';
const WITH_LOCALES = [path.join("zod", "v4", "classic", "external.js"), path.join("zod", "v4", "core", "index.js")];

export function lazyZodLocales() {
  const localesIndex = fileURLToPath(import.meta.resolve("zod/v4/locales"));
  const names = [...readFileSync(localesIndex, "utf8").matchAll(/export \{ default as (\w+) \}/g)]
    .map((m) => m[1])
    .sort(); // in a namespace's order
  return {
    name: "lazy-zod-locales",
    resolveId: (id) => (id === LAZY ? id : null),
    load(id) {
      if (id !== LAZY) return null;
      const getters = names.map((n) => `  get ${n}() { return all().${n}; },`).join("\n");
      return [
        `import { createRequire } from "node:module";`,
        `let loaded;`,
        `const all = () => (loaded ??= createRequire(import.meta.url)("zod/v4/locales"));`,
        `export const locales = Object.freeze({\n${getters}\n});`,
      ].join("\n");
    },
    transform(code, id) {
      if (!WITH_LOCALES.some((m) => id.endsWith(m))) return null;
      if (!code.includes(EAGER))
        this.error(`zod's ${id} no longer has \`${EAGER}\`: update scripts/lazy-zod-locales.mjs`);
      return code.replace(EAGER, `export { locales } from ${JSON.stringify(LAZY)};`);
    },
  };
}
