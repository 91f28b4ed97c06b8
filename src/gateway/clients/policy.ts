/**
 * What one gateway client may see and call, compiled from its `expose` once (the check runs on every
 * list and call). The gateway-level expose stays the ceiling: a policy only ever narrows what the
 * catalog already offers, so a client naming more than the gateway exposes still gets no more.
 *
 * An instance listed `true` is the client's whole: its tools, and for an mcp connector its resources,
 * resource templates and prompts. A list names contract methods, or for an mcp connector tool names
 * and globs; a client given part of a connector gets only those tools, not its resources or prompts
 * (a resource or prompt cannot be attributed to one tool).
 */
import type { ClientPolicySpec } from "../../config/types.js";

type InstanceRule = { whole: true } | { whole: false; exact: Set<string>; globs: RegExp[] };

export class ClientPolicy {
  readonly id: string;
  readonly limits: ClientPolicySpec["limits"];
  readonly metrics: boolean;
  /** Where connectors.json defines it, as a JSON pointer: a static client or an OAuth one. */
  readonly pointer: string;
  private readonly rules = new Map<string, InstanceRule>();

  constructor(spec: ClientPolicySpec) {
    this.id = spec.id;
    this.limits = spec.limits;
    this.metrics = spec.metrics;
    this.pointer = spec.pointer;
    for (const [instance, setting] of Object.entries(spec.expose)) {
      if (setting === false) continue;
      if (setting === true) {
        this.rules.set(instance, { whole: true });
        continue;
      }
      const exact = new Set(setting.filter((s) => !isGlob(s)));
      const globs = setting.filter(isGlob).map(globToRegExp);
      this.rules.set(instance, { whole: false, exact, globs });
    }
  }

  /** Whether the tool `target` (an mcp tool's own name, or a contract method) of `instance` is this client's. */
  seesTool(instance: string, target: string): boolean {
    const rule = this.rules.get(instance);
    if (!rule) return false;
    if (rule.whole) return true;
    return rule.exact.has(target) || rule.globs.some((g) => g.test(target));
  }

  /** Whether the client has `instance` whole: its resources, templates and prompts too. */
  seesWhole(instance: string): boolean {
    return this.rules.get(instance)?.whole === true;
  }

  /** Whether the client sees anything of `instance` (its health messages, its status row). */
  seesAny(instance: string): boolean {
    return this.rules.has(instance);
  }
}

const isGlob = (s: string): boolean => s.includes("*") || s.includes("?");

/** `*` any run of characters, `?` one; everything else literal (a tool name is not a pattern language). */
export function globToRegExp(glob: string): RegExp {
  const body = [...glob]
    .map((ch) => (ch === "*" ? ".*" : ch === "?" ? "." : ch.replace(/[\\^$.+()[\]{}|/-]/g, "\\$&")))
    .join("");
  return new RegExp(`^${body}$`, "s");
}
