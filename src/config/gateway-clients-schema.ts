/**
 * connectors.json `gateway.clients`, `gateway.oauth` and `gateway.state`: who may call the gateway
 * and what each caller sees. Kept beside schema.ts (which holds the rest of the gateway section) so
 * that file stays one screenful per section.
 *
 * A client id is a short plain name because it appears in audit lines, metric labels, error
 * messages and the status page: no spaces, quotes or markup to escape in any of them.
 */
import { z } from "zod";

export const CLIENT_ID_PATTERN = "[A-Za-z0-9][A-Za-z0-9._-]{0,63}";

export const clientId = z
  .string()
  .regex(new RegExp(`^${CLIENT_ID_PATTERN}$`), {
    message: "client id must be 1–64 letters, digits, '.', '_' or '-', starting with a letter or digit",
  })
  .meta({ pattern: `^(?:_.*|${CLIENT_ID_PATTERN})$` });

/** Same shape as gateway.expose; for an mcp instance a list names tools or globs ("search_*"). */
export const clientExpose = (instanceRef: z.ZodString) =>
  z.record(instanceRef, z.union([z.boolean(), z.array(z.string().min(1).max(200)).max(1000)])).meta({
    description:
      'Per instance ("section/name"): what this client sees, within gateway.expose (never more). true: all the gateway exposes of it; a list: those contract methods, or for an mcp instance those tool names or globs ("search_*"). Unlisted instances are not visible to this client.',
  });

const limits = z
  .strictObject({
    callsPerMinute: z.number().int().positive().max(1_000_000).optional().meta({
      description:
        "Calls (tools/call, resources/read, prompts/get) per minute; past it a coded error says when to retry.",
    }),
    concurrent: z.number().int().positive().max(10_000).optional().meta({
      description: "Calls in flight at once.",
    }),
  })
  .meta({ description: "This client's quota; shared across replicas when gateway.state names a PostgreSQL." });

const policyFields = (instanceRef: z.ZodString) => ({
  expose: clientExpose(instanceRef),
  limits: limits.optional(),
  metrics: z.boolean().default(false).meta({ description: "May read GET /metrics." }),
});

const sha256Hex = z
  .string()
  .regex(/^[0-9a-f]{64}$/, { message: "must be 64 lowercase hex digits (the SHA-256 of the token)" });

export const clientsSchema = (instanceRef: z.ZodString) =>
  z
    .record(
      clientId,
      z
        .strictObject({
          token: z.string().min(16).optional().meta({
            description: 'The client\'s bearer token, as a "${VAR}" reference: never the token itself in this file.',
          }),
          tokenSha256: sha256Hex.optional().meta({
            description: "The SHA-256 (hex) of the client's token; `patchbay client add` writes it.",
          }),
          ...policyFields(instanceRef),
        })
        .refine((c) => (c.token === undefined) !== (c.tokenSha256 === undefined), {
          message: 'give exactly one of "token" (a ${VAR} reference) and "tokenSha256"',
        }),
    )
    .default({})
    .meta({
      description:
        "Callers of `serve --http`, each with its own token and what it may see and call. PATCHBAY_TOKEN (or .patchbay/token) stays the operator, with the whole gateway.expose.",
    });

const claimMatch = z
  .strictObject({
    sub: z.string().min(1).optional().meta({ description: "Matches when the token's subject is this value." }),
    client_id: z
      .string()
      .min(1)
      .optional()
      .meta({ description: "Matches when the OAuth client the token was issued to is this value." }),
    azp: z.string().min(1).optional().meta({ description: "Matches when the authorized party is this value." }),
    scope: z
      .string()
      .min(1)
      .optional()
      .meta({ description: "Matches when one scope the token carries is this value." }),
  })
  .refine((m) => Object.keys(m).length === 1, { message: "name exactly one of sub, client_id, azp, scope" })
  .meta({
    description: "The access token claim that makes a caller this client: one of sub, client_id, azp or a scope.",
  });

export const oauthSchema = (instanceRef: z.ZodString) =>
  z
    .strictObject({
      issuer: z.url({ protocol: /^https?$/ }).meta({ description: "The authorization server's issuer URL." }),
      audience: z.string().min(1).meta({
        description: "This gateway's resource identifier (RFC 8707): access tokens must name it in aud.",
      }),
      jwksUri: z
        .url({ protocol: /^https?$/ })
        .optional()
        .meta({
          description: "Where the signing keys are; discovered from the issuer's metadata when absent.",
        }),
      algorithms: z
        .array(z.enum(["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"]))
        .min(1)
        .default(["RS256", "PS256", "ES256", "EdDSA"])
        .meta({ description: "Signature algorithms accepted (asymmetric only: never none, never HMAC)." }),
      clients: z
        .record(clientId, z.strictObject({ match: claimMatch, ...policyFields(instanceRef) }))
        .default({})
        .meta({ description: "Token holders as clients, matched by a claim; a valid token matching none is refused." }),
    })
    .optional()
    .meta({ description: "OAuth 2.1 resource-server mode: bearer JWTs from this issuer are accepted." });

export const stateSchema = z
  .strictObject({
    postgres: z.string().min(1).meta({
      description: 'A PostgreSQL connection string (usually "${VAR}"): quotas and the audit trail shared by replicas.',
    }),
  })
  .optional()
  .meta({ description: "Gateway state shared by replicas; without it, each process keeps its own in memory." });
