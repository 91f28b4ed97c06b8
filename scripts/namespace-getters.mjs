// A rolldown plugin for the worker runtime's bundle (scripts/bundle-runtime.mjs): each namespace
// object rolldown writes as `__exportAll({ name: () => binding, ... })` (zod's `z`, `z.core` and
// their kind: ~930 names in "patchbay/plugin") becomes an object literal of getters,
// `{ get name() { return binding; }, ... }`, tagged "Module" as before. Why: __exportAll defines
// each name with Object.defineProperty and a closure of its own, ~1 ms of every worker's start
// for zod's namespaces (measured on Node 20: 1,500 names took 1.6 ms that way, 0.4 ms as a
// literal). The same names, enumerable, read live as before; a namespace's shape this does not
// know fails the build rather than change what it says.
// tests/boot/runtime-bundle.test.ts holds `z` and its namespaces to zod's own.

const CALL = /__exportAll\(\{(\}\)|\n((?:\t[^\n]*\n)*)\}\))/g;
const ENTRY = /^\t("(?:[^"\\]|\\.)*"|[A-Za-z_$][\w$]*): \(\) => ([^\n]+?),?$/;

/** `code` with every `__exportAll({...})` call written as a tagged literal of getters. */
export function namespaceGetters(code, file = "chunk") {
  return code.replace(CALL, (_, rest, body) => {
    if (rest === "})") return `Object.defineProperty({}, Symbol.toStringTag, { value: "Module" })`;
    const getters = body
      .split("\n")
      .filter(Boolean)
      .map((line) => {
        const m = ENTRY.exec(line);
        if (!m) throw new Error(`${file}: a namespace entry this build does not know: ${line.trim()}`);
        return `\tget ${m[1]}() {\n\t\treturn ${m[2]};\n\t},`;
      });
    return `Object.defineProperty({\n${getters.join("\n")}\n}, Symbol.toStringTag, { value: "Module" })`;
  });
}

export function namespaceGettersPlugin() {
  return {
    name: "namespace-getters",
    renderChunk: (code, chunk) => ({ code: namespaceGetters(code, chunk.fileName), map: null }),
  };
}
