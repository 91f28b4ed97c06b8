/**
 * No import circles in src/: a module that reaches itself through its imports is one module in two
 * files (neither can be read, moved or tested alone), and at run time the first one loaded sees the
 * other half-initialised. Type-only imports count: they tie the files together for a reader and for
 * the typecheck just the same; a type both sides need goes in a module of its own.
 *
 * Every way one file names another is an edge: `import` (type-only included), `import "x"`,
 * `export ... from`, a lazy `import("x")` and a type's `import("x").T`. A lazy import keeps a module off
 * the start-up path, but the two files still depend on each other: neither can be changed or moved alone.
 */
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { srcFiles } from "./_src-tree.js";

/**
 * Circles still allowed, each as the sorted list of its files: none left. An entry is a debt with a
 * change that owns it; delete it once its circle is cut (the last test fails on an entry that matches
 * no circle, so the list can only shrink).
 */
const ALLOWED_CYCLES: readonly (readonly string[])[] = [];

/** The relative module specifiers `text` names: imports, re-exports, lazy imports and import types. */
function moduleSpecifiers(text: string, fileName = "file.ts"): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const specs: string[] = [];
  const add = (node: ts.Node | undefined) => {
    if (node && ts.isStringLiteralLike(node) && node.text.startsWith(".")) specs.push(node.text);
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) add(node.moduleSpecifier);
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) add(node.arguments[0]);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) add(node.argument.literal);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return specs;
}

/** The import graph of `files` (paths relative to src/, with "/" separators): file → files it imports. */
function importGraph(files: ReadonlyMap<string, string>): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const [file, text] of files) {
    const targets = moduleSpecifiers(text, file)
      .map((spec) => path.posix.normalize(path.posix.join(path.posix.dirname(file), spec)).replace(/\.js$/, ".ts"))
      .filter((target) => files.has(target));
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/**
 * Every circle of `graph`, one per strongly connected component (Tarjan): its files sorted, and one
 * path around it (a → b → … → a) to show where to cut.
 */
function importCycles(graph: ReadonlyMap<string, string[]>): { files: string[]; path: string[] }[] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || (graph.get(node) ?? []).includes(node)) components.push(component.sort());
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return components.map((files) => ({ files, path: pathAround(graph, files) }));
}

/** The shortest path from the component's first file back to itself, staying inside the component. */
function pathAround(graph: ReadonlyMap<string, string[]>, files: string[]): string[] {
  const inside = new Set(files);
  const start = files[0];
  const cameFrom = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    for (const next of graph.get(queue[i]) ?? []) {
      if (!inside.has(next)) continue;
      if (next === start) {
        const back = [start];
        for (let at: string | undefined = queue[i]; at !== undefined && at !== start; at = cameFrom.get(at))
          back.push(at);
        return [start, ...back.slice(1).reverse(), start];
      }
      if (!cameFrom.has(next)) {
        cameFrom.set(next, queue[i]);
        queue.push(next);
      }
    }
  }
  return files;
}

/** One path around the circle, and every file in it when the circle is wider than that path. */
const describeCycle = (c: { files: string[]; path: string[] }) =>
  c.path.join(" → ") + (c.files.length + 1 > c.path.length ? ` (all ${c.files.length}: ${c.files.join(", ")})` : "");

const isAllowed = (files: readonly string[]) => ALLOWED_CYCLES.some((a) => a.join("\n") === files.join("\n"));

describe("import cycles in src/", () => {
  const cycles = importCycles(importGraph(srcFiles()));

  it("reads the real tree (the graph is not empty)", () => {
    const graph = importGraph(srcFiles());
    expect(graph.size).toBeGreaterThan(100);
    expect(graph.get("index.ts")).toContain("errors.ts");
  });

  it("has no import circle outside the allowlist", () => {
    const report = cycles.filter((c) => !isAllowed(c.files)).map(describeCycle);
    expect(report, "import circles (type-only imports count; move what both sides need to its own module)").toEqual([]);
  });

  it("allows only circles that still exist", () => {
    const stale = ALLOWED_CYCLES.filter((a) => !cycles.some((c) => c.files.join("\n") === a.join("\n")));
    expect(stale, "ALLOWED_CYCLES entries that match no circle any more: delete them").toEqual([]);
  });

  it("finds planted circles: type-only imports, re-exports, lazy imports, import types, a longer ring", () => {
    const planted = new Map([
      ["a.ts", 'import type { B } from "./b.js";\nexport type A = B;'],
      ["b.ts", 'export { a } from "./a.js";'],
      ["c.ts", 'import { d } from "./dir/d.js";'],
      ["dir/d.ts", 'import "../e.js";'],
      ["e.ts", 'import { c } from "./c.js";'],
      ["f.ts", 'const g = await import("./g.js");'],
      ["g.ts", 'import { f } from "./f.js";'],
      ["h.ts", 'import { h } from "./h.js";'],
      ["i.ts", 'export type I = import("./j.js").J;'],
      ["j.ts", 'import type { I } from "./i.js";'],
      ["k.ts", 'import { readFile } from "node:fs";\nimport { x } from "./missing.js";'],
    ]);
    expect(importCycles(importGraph(planted))).toEqual([
      { files: ["a.ts", "b.ts"], path: ["a.ts", "b.ts", "a.ts"] },
      { files: ["c.ts", "dir/d.ts", "e.ts"], path: ["c.ts", "dir/d.ts", "e.ts", "c.ts"] },
      { files: ["f.ts", "g.ts"], path: ["f.ts", "g.ts", "f.ts"] },
      { files: ["h.ts"], path: ["h.ts", "h.ts"] },
      { files: ["i.ts", "j.ts"], path: ["i.ts", "j.ts", "i.ts"] },
    ]);
  });
});
