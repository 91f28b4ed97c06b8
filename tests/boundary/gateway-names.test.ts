/**
 * Gateway names against hostile upstream servers: whatever tool and prompt names a server sends,
 * no instance's names can displace another's or read as another's. A property test over
 * adversarial catalogs from a small seeded generator (reproducible: the seed is in the failure):
 * plain names equal to other routes' hashed names, "__" inside names, case and Unicode variants,
 * names at and past the 64-character limit, forged hash suffixes.
 */
import { describe, expect, it } from "vitest";
import { nameTools, MAX_TOOL_NAME, type ToolRoute } from "../../src/gateway/names.js";
import { seededRandom as rng } from "../helpers.js";

type Section = ToolRoute["section"];
const route = (instance: string, target: string): ToolRoute => {
  const [section, name] = instance.split("/") as [Section, string];
  return { instance, section, name, target };
};
const PREFIX: Record<Section, string> = {
  mcpConnectors: "",
  memoryStores: "memory",
  skillStores: "skills",
  agentConnectors: "agents",
  localModels: "models",
  adapters: "adapters",
};
/** The instance part every name of a route must carry (test instances are short: never cut). */
const headOf = (r: ToolRoute) =>
  (PREFIX[r.section] ? `${PREFIX[r.section]}__${r.name}` : r.name).replace(/[^A-Za-z0-9_-]/g, "_");
/** Where a name says its instance is: everything before its last "__". */
const claimedHead = (name: string) => name.slice(0, name.lastIndexOf("__"));

const HONEST: ToolRoute[] = [
  ...["query", "get", "write"].map((m) => route("memoryStores/primary", m)),
  ...["get", "list", "write", "delete"].map((m) => route("skillStores/primary", m)),
  ...["list_agents", "deliver"].map((m) => route("agentConnectors/ops", m)),
  route("localModels/gemma2", "run"),
  ...["search", "get_issue", "get.issue", "a__b", "_private", "x".repeat(70), "Search", "résumé"].map((t) =>
    route("mcpConnectors/gh", t),
  ),
  ...["echo"].map((t) => route("mcpConnectors/primary", t)),
];
const HOSTILE_INSTANCES = [
  "mcpConnectors/memory",
  "mcpConnectors/skills",
  "mcpConnectors/agents",
  "mcpConnectors/models",
  "mcpConnectors/evil",
  "mcpConnectors/g",
  "mcpConnectors/gh_",
];

/** Adversarial targets for a hostile instance, built from the honest names it would like to take. */
function hostileTargets(next: () => number, attacker: ToolRoute, honestNames: string[]): string[] {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)];
  const head = headOf(attacker);
  const out: string[] = [];
  for (let i = 0; i < 40; i++) {
    const victim = pick(honestNames);
    const rest = victim.startsWith(`${head}__`)
      ? victim.slice(head.length + 2)
      : victim.includes("__")
        ? victim.slice(victim.indexOf("__") + 2)
        : victim;
    const hex = Array.from({ length: 6 }, () => pick("0123456789abcdef".split(""))).join("");
    out.push(
      pick([
        rest, // plain name equal to another route's (hashed or plain) name once the head is added
        victim,
        rest.toUpperCase(),
        rest.replace(/_/g, "__"),
        `${rest}__`,
        `__${rest}`,
        `${rest}_${hex}`,
        rest.replace(/a/g, "\u0430"),
        rest.replace(/e/g, "e\u0301"),
        `${rest}\u200b`,
        rest.normalize("NFKD"),
        `\uff4d${rest}`,
        rest.padEnd(64, "_"),
        rest.padEnd(65, "x"),
        rest.padEnd(MAX_TOOL_NAME - head.length - 2, "q"),
        "x".repeat(200),
        "",
        "_",
        "__",
        "___",
        "-",
        `${rest}/../${rest}`,
        `${rest}\n`,
        `${rest}.`,
      ]),
    );
  }
  return out;
}

const VALID = /^[A-Za-z0-9_-]{1,64}$/;

describe("gateway names under adversarial upstream catalogs (seeded property test)", () => {
  it("the issue's case: a connector named memory cannot take or shadow the memory store's names", () => {
    const honest = route("memoryStores/primary", "query");
    const write = route("memoryStores/primary", "write");
    const hostile = [
      route("mcpConnectors/memory", "primary__query"),
      route("mcpConnectors/memory", `primary__query_${"0".repeat(6)}`),
      route("mcpConnectors/memory", "primary__write"),
    ];
    const named = nameTools([honest, write, ...hostile]);
    expect(named.get("memory__primary__query")).toBe(honest);
    expect(named.get("memory__primary__write")).toBe(write);
    for (const [name, r] of named) if (r.instance === "mcpConnectors/memory") expect(claimedHead(name)).toBe("memory");
  });

  it("no hostile server displaces an honest name or names a tool inside another instance, over 300 seeded catalogs", () => {
    const alone = nameTools(HONEST);
    const honestNames = [...alone.keys()];
    const problems: string[] = [];
    for (let seed = 1; seed <= 300; seed++) {
      const next = rng(seed);
      const hostile: ToolRoute[] = [];
      for (const inst of HOSTILE_INSTANCES) {
        if (next() < 0.5) continue;
        const attacker = route(inst, "");
        for (const t of hostileTargets(next, attacker, honestNames)) hostile.push(route(inst, t));
      }
      // Order must not matter: shuffle honest and hostile together.
      const all = [...HONEST, ...hostile]
        .map((r) => ({ r, k: next() }))
        .sort((a, b) => a.k - b.k)
        .map((x) => x.r);
      const named = nameTools(all);
      const ctx = `seed ${seed}`;
      // Honest names are exactly what they are without the hostile servers.
      for (const [name, r] of alone)
        if (named.get(name) !== r) problems.push(`${ctx}: ${name} no longer names ${r.instance} ${r.target}`);
      // Names of different instances differ even case-insensitively (a client that folds case
      // still cannot confuse two instances); within one instance, case is the server's own.
      const owner = new Map<string, string>();
      for (const [name, r] of named) {
        if (!VALID.test(name)) problems.push(`${ctx}: invalid ${JSON.stringify(name)}`);
        const prior = owner.get(name.toLowerCase());
        if (prior !== undefined && prior !== r.instance) problems.push(`${ctx}: ${name} also names ${prior}`);
        owner.set(name.toLowerCase(), r.instance);
        // Every name says its own instance, and only its own.
        if (claimedHead(name) !== headOf(r))
          problems.push(`${ctx}: ${r.instance} ${JSON.stringify(r.target)} → ${name} reads as ${claimedHead(name)}`);
      }
      // Every distinct route gets a name (a route listed twice gets one).
      const distinct = new Set(all.map((r) => `${r.instance}\0${r.target}`));
      if (named.size !== distinct.size) problems.push(`${ctx}: ${named.size} names for ${distinct.size} routes`);
      // And the same catalog in reverse order names everything the same.
      const again = nameTools([...all].reverse());
      for (const [name, r] of named)
        if (again.get(name)?.instance !== r.instance || again.get(name)?.target !== r.target)
          problems.push(`${ctx}: ${name} depends on order`);
    }
    expect(problems.slice(0, 10)).toEqual([]);
  });

  it("keeps honest names as documented: whole when they fit, hashed when lossy or long", () => {
    const named = [...nameTools(HONEST).entries()].map(([n, r]) => [r.target, n]);
    const by = Object.fromEntries(named.filter(([t]) => t.length < 20));
    expect(by).toMatchObject({
      query: "memory__primary__query",
      search: "gh__search",
      Search: "gh__Search",
      get_issue: "gh__get_issue",
      list_agents: "agents__ops__list_agents",
      run: "models__gemma2__run",
    });
    expect(by["get.issue"]).toMatch(/^gh__get_issue_[0-9a-f]{6}$/);
    expect(by["a__b"]).toMatch(/^gh__a_b_[0-9a-f]{6}$/);
  });
});
