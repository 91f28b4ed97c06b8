// A rolldown plugin for the CLI's, the demo server's and the worker runtime's bundles
// (bundle-cli.mjs, bundle-runtime.mjs): the MCP SDK's types.js builds its ~170 zod schemas when it is imported,
// and a process that imports the SDK imports it: on Node 20 that was the largest share of the
// CPU a `serve` spends before its client's first call, on the host's thread and again in each
// instance's (zod 4 builds a schema eagerly; most of them are never used by a given process).
// Here each `XSchema = <zod expression>` of that module becomes a stand-in that builds the
// schema the first time anything touches it and forwards every operation to it from then on:
// parse, safeParse, `.shape`, `instanceof`, `in`, keys and prototype all answer as the schema
// does. Aliases (`XSchema = YSchema`) stay the same stand-in. Nothing compares the SDK's schemas
// by identity (the SDK and our code only parse with them and read their shapes), which
// tests/boot/lazy-sdk-schemas.test.ts holds the stand-ins to alongside parse results.
const LAZY = "\0patchbay-lazy-sdk-schema";
const TYPES = ["@modelcontextprotocol", "sdk", "dist", "esm", "types.js"];
/** Fewer than this many schemas made lazy means the SDK's module changed shape: fail the build. */
const AT_LEAST = 150;

/** The stand-in, as the module the rewritten types.js imports. */
const RUNTIME = `
export function lazySchema(build) {
  let real;
  const of = () => (real ??= build());
  const target = {};
  return new Proxy(target, {
    get: (_, key) => Reflect.get(of(), key),
    set: (_, key, value) => Reflect.set(of(), key, value),
    has: (_, key) => Reflect.has(of(), key),
    deleteProperty: (_, key) => Reflect.deleteProperty(of(), key),
    defineProperty: (_, key, desc) => Reflect.defineProperty(of(), key, desc),
    ownKeys: () => Reflect.ownKeys(of()),
    getPrototypeOf: () => Reflect.getPrototypeOf(of()),
    getOwnPropertyDescriptor(_, key) {
      const desc = Reflect.getOwnPropertyDescriptor(of(), key);
      // A proxy may call a property non-configurable only when its target has it so.
      if (desc && !desc.configurable && !Reflect.getOwnPropertyDescriptor(target, key)) Reflect.defineProperty(target, key, desc);
      return desc;
    },
  });
}
`;

export function lazySdkSchemas() {
  return {
    name: "lazy-sdk-schemas",
    resolveId: (id) => (id === LAZY ? id : null),
    load: (id) => (id === LAZY ? RUNTIME : null),
    transform(code, id) {
      if (!id.split(/[\\/]/).join("/").endsWith(TYPES.join("/"))) return null;
      const edits = [];
      for (const statement of this.parse(code).body) {
        const declaration = statement.type === "ExportNamedDeclaration" ? statement.declaration : statement;
        if (declaration?.type !== "VariableDeclaration" || declaration.kind !== "const") continue;
        for (const d of declaration.declarations)
          if (d.id.type === "Identifier" && d.id.name.endsWith("Schema") && d.init && d.init.type !== "Identifier")
            edits.push(d.init);
      }
      if (edits.length < AT_LEAST)
        this.error(
          `the MCP SDK's ${id} has ${edits.length} schemas this can defer (expected ${AT_LEAST}+): update scripts/lazy-sdk-schemas.mjs`,
        );
      let out = code;
      for (const init of edits.sort((a, b) => b.start - a.start))
        out = `${out.slice(0, init.start)}__lazySchema(() => ${out.slice(init.start, init.end)})${out.slice(init.end)}`;
      return `import { lazySchema as __lazySchema } from ${JSON.stringify(LAZY)};\n${out}`;
    },
  };
}
