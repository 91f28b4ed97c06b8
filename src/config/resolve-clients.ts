/**
 * gateway.clients / oauth / state → their resolved shapes. A static client's token is hashed here
 * and dropped: nothing after the load holds it, so nothing after the load can leak it.
 */
import { createHash } from "node:crypto";
import { toPointer, type ConfigIssue } from "./issues.js";
import type { ConnectorsFile } from "./schema.js";
import type { ClientPolicySpec, ResolvedGateway, ResolvedOAuthClient } from "./types.js";

type GatewaySection = ConnectorsFile["gateway"];
type PolicyInput = {
  expose: Record<string, boolean | string[]>;
  limits?: { callsPerMinute?: number; concurrent?: number };
  metrics: boolean;
};

function policy(id: string, pointer: string, c: PolicyInput): ClientPolicySpec {
  return {
    id,
    pointer,
    expose: { ...c.expose },
    limits: { callsPerMinute: c.limits?.callsPerMinute ?? null, concurrent: c.limits?.concurrent ?? null },
    metrics: c.metrics,
  };
}

export function resolveClients(g: GatewaySection): Pick<ResolvedGateway, "clients" | "oauth" | "state"> {
  const clients = Object.entries(g.clients).map(([id, c]) => ({
    ...policy(id, toPointer(["gateway", "clients", id]), c),
    tokenSha256: c.tokenSha256 ?? createHash("sha256").update(c.token!.trim()).digest("hex"),
  }));
  const oauth = g.oauth
    ? {
        issuer: g.oauth.issuer,
        audience: g.oauth.audience,
        jwksUri: g.oauth.jwksUri ?? null,
        algorithms: [...g.oauth.algorithms],
        clients: Object.entries(g.oauth.clients).map(([id, c]): ResolvedOAuthClient => {
          const [claim, value] = Object.entries(c.match)[0] as [ResolvedOAuthClient["match"]["claim"], string];
          return { ...policy(id, toPointer(["gateway", "oauth", "clients", id]), c), match: { claim, value } };
        }),
      }
    : null;
  return { clients, oauth, state: g.state ? { postgres: g.state.postgres } : null };
}

const REFERENCE = /^\s*\$\{[A-Za-z_][A-Za-z0-9_]*\}\s*$/;

/**
 * Problems zod cannot see: a token written into the file itself (it must come from ${VAR}, checked on
 * the raw value before resolution), a client id used twice (static and OAuth), a client naming an
 * instance that does not exist, and two clients with the same token.
 */
export function clientIssues(raw: unknown, parsed: ConnectorsFile, instanceIds: readonly string[]): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const rawClients = (raw as { gateway?: { clients?: Record<string, { token?: unknown }> } } | null)?.gateway?.clients;
  const seenHashes = new Map<string, string>();
  for (const [id, c] of Object.entries(parsed.gateway.clients)) {
    const rawToken = rawClients && typeof rawClients === "object" ? rawClients[id]?.token : undefined;
    if (typeof rawToken === "string" && !REFERENCE.test(rawToken))
      issues.push({
        pointer: toPointer(["gateway", "clients", id, "token"]),
        message:
          'a token must not be written in connectors.json: use "${VAR}" and set VAR in the environment, or run `patchbay client add` (which stores only its SHA-256)',
      });
    const hash = c.tokenSha256 ?? (c.token ? createHash("sha256").update(c.token.trim()).digest("hex") : "");
    const other = seenHashes.get(hash);
    if (hash && other)
      issues.push({
        pointer: toPointer(["gateway", "clients", id]),
        message: `has the same token as client "${other}": give each client its own`,
      });
    else if (hash) seenHashes.set(hash, id);
  }
  const policies: [string[], Record<string, unknown>][] = Object.entries(parsed.gateway.clients).map(([id, c]) => [
    ["gateway", "clients", id],
    c.expose,
  ]);
  for (const [id, c] of Object.entries(parsed.gateway.oauth?.clients ?? {})) {
    if (Object.hasOwn(parsed.gateway.clients, id))
      issues.push({
        pointer: toPointer(["gateway", "oauth", "clients", id]),
        message: `client id "${id}" is also a client in gateway.clients: give each caller one id`,
      });
    policies.push([["gateway", "oauth", "clients", id], c.expose]);
  }
  for (const [path] of policies)
    if (path[path.length - 1] === "operator")
      issues.push({
        pointer: toPointer(path),
        message: 'client id "operator" is reserved for the server\'s own token (PATCHBAY_TOKEN): choose another id',
      });
  for (const [path, expose] of policies)
    for (const ref of Object.keys(expose))
      if (!instanceIds.includes(ref))
        issues.push({
          pointer: toPointer([...path, "expose", ref]),
          message: `"${ref}" is not an instance in connectors.json`,
        });
  return issues;
}
