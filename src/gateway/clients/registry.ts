/**
 * The gateway's callers, looked up from a request's bearer token: the operator's token, a static
 * client's (by the SHA-256 connectors.json holds), or an OAuth access token (oauth.ts, loaded only
 * when gateway.oauth is set, so a gateway without it never loads jose). Static lookups are
 * synchronous: the hot path pays no await for them.
 *
 * reload() swaps the table in place: a revoked token is refused on its very next request, and
 * requests of sessions it opened are refused with it (http.ts re-authenticates every request).
 */
import crypto, { createHash, timingSafeEqual } from "node:crypto";
import type { ResolvedGateway, ResolvedOAuthClient } from "../../config/types.js";
import { pbError, type PatchbayError } from "../../errors.js";
import { NO_CLIENT_HINT, OPERATOR, type AuthRefusal, type Caller } from "./caller.js";
import { ClientPolicy } from "./policy.js";
import type { OAuthVerifier } from "./oauth.js";

/** Longer bearer values are refused before any work (a JWT from a real IdP is well under it). */
export const MAX_BEARER = 8 * 1024;

type Verdict = Caller | AuthRefusal;

export class ClientRegistry {
  private readonly operatorDigest: Buffer;
  private byHash = new Map<string, Caller>();
  private oauthClients = new Map<string, ClientPolicy>();
  private oauthSpecs: readonly ResolvedOAuthClient[] = [];
  private verifier: OAuthVerifier | null = null;
  private oauthKey = "";
  /** Where an MCP client finds the authorization server (RFC 9728); set by http.ts once it listens. */
  resourceMetadataUrl = "";

  private constructor(operatorToken: string) {
    this.operatorDigest = sha256(operatorToken);
  }

  static async create(
    operatorToken: string,
    gateway: Pick<ResolvedGateway, "clients" | "oauth">,
  ): Promise<ClientRegistry> {
    const registry = new ClientRegistry(operatorToken);
    await registry.reload(gateway);
    return registry;
  }

  /** The clients in force now (after a hot reload or `patchbay client add|revoke`). */
  async reload(gateway: Pick<ResolvedGateway, "clients" | "oauth">): Promise<void> {
    const clash = this.operatorClashes(gateway)[0];
    if (clash) throw clash;
    const byHash = new Map<string, Caller>();
    for (const c of gateway.clients)
      byHash.set(c.tokenSha256, { id: c.id, policy: new ClientPolicy(c), binding: `client:${c.id}` });
    const key = gateway.oauth ? JSON.stringify({ ...gateway.oauth, clients: null }) : "";
    if (gateway.oauth && key !== this.oauthKey) {
      const { createOAuthVerifier } = await import("./oauth.js");
      this.verifier = createOAuthVerifier(gateway.oauth);
    } else if (!gateway.oauth) this.verifier = null;
    this.oauthKey = key;
    // The verifier outlives a reload that changes only the clients (its key cache stays warm), so
    // each verify is given the clients in force now.
    this.oauthSpecs = gateway.oauth?.clients ?? [];
    this.oauthClients = new Map(this.oauthSpecs.map((c) => [c.id, new ClientPolicy(c)]));
    this.byHash = byHash;
  }

  /**
   * Clients whose token is the operator's: the operator's token is matched first, so such a client
   * would call as the operator, past its expose and limits, and the trail would name the operator.
   */
  operatorClashes(gateway: Pick<ResolvedGateway, "clients">): PatchbayError[] {
    const operator = this.operatorDigest.toString("hex");
    return gateway.clients
      .filter((c) => c.tokenSha256 === operator)
      .map((c) =>
        pbError(
          "PB_ERR_CONFIG_INVALID",
          `connectors.json ${c.pointer}: client "${c.id}" has the operator's token (this serve's PATCHBAY_TOKEN or .patchbay/token), so its calls would run as the operator, past its expose and limits.`,
          { pointer: c.pointer, client: c.id },
          "Give the client a token of its own (`patchbay client add` makes one), or leave the operator's token to the operator.",
        ),
      );
  }

  get oauth(): OAuthVerifier | null {
    return this.verifier;
  }

  /** Ids of every configured client (static and OAuth). */
  ids(): string[] {
    return [...[...this.byHash.values()].map((c) => c.id), ...this.oauthClients.keys()];
  }

  /** Every configured client, how it proves who it is, and its limits (the status page's rows). */
  list(): { id: string; identity: "token" | "oauth"; limits: ClientPolicy["limits"] }[] {
    return [
      ...[...this.byHash.values()].map((c) => ({ id: c.id, identity: "token" as const, limits: c.policy!.limits })),
      ...[...this.oauthClients.values()].map((p) => ({ id: p.id, identity: "oauth" as const, limits: p.limits })),
    ];
  }

  /** Whether `id` is still a client (a session whose client was revoked is ended). */
  has(id: string): boolean {
    return id === OPERATOR.id || this.oauthClients.has(id) || [...this.byHash.values()].some((c) => c.id === id);
  }

  /**
   * The caller a session was bound to, as configured now, for work done on its behalf with no
   * request in hand (a replica taking over its subscriptions); null when that client is gone.
   */
  callerFor(binding: string): Caller | null {
    if (binding === OPERATOR.binding) return OPERATOR;
    for (const c of this.byHash.values()) if (c.binding === binding) return c;
    const m = /^oauth:([^:]+):/.exec(binding);
    const policy = m ? this.oauthClients.get(m[1]) : undefined;
    return policy ? { id: policy.id, policy, binding } : null;
  }

  /** The caller a request's Authorization header names, or why it is refused. */
  authenticate(header: string | undefined): Verdict | Promise<Verdict> {
    if (!header || !/^Bearer /i.test(header)) return this.refuse(header ? "malformed" : "missing");
    const token = header.slice(7).trim();
    if (token.length > MAX_BEARER) return this.refuse("too-large");
    const digest = sha256(token);
    if (timingSafeEqual(digest, this.operatorDigest)) return OPERATOR;
    const client = this.byHash.get(digest.toString("hex"));
    if (client) return client;
    if (this.verifier && token.split(".").length === 3) return this.viaOAuth(token);
    return this.refuse("wrong");
  }

  private async viaOAuth(token: string): Promise<Verdict> {
    const verifier = this.verifier!;
    const verdict = await verifier.verify(token, this.oauthSpecs);
    if ("status" in verdict)
      return {
        status: verdict.status,
        code: verdict.code,
        message: verdict.message,
        ...(verdict.status === 401 && { challenge: verifier.challenge(this.resourceMetadataUrl, verdict) }),
        ...(verdict.retryAfter && { retryAfter: verdict.retryAfter }),
        ...(verdict.hint && { hint: verdict.hint }),
      };
    const policy = this.oauthClients.get(verdict.client.id);
    if (!policy)
      return {
        status: 403,
        code: "PB_ERR_CLIENT_UNKNOWN",
        message: "The access token matches no gateway client.",
        hint: NO_CLIENT_HINT,
      };
    return { id: policy.id, policy, binding: `oauth:${policy.id}:${verdict.subject ?? ""}` };
  }

  /**
   * A missing or wrong token. Without OAuth it is a 403, not RFC 6750's 401, and with no
   * WWW-Authenticate challenge: to an MCP client a 401 means "sign in with OAuth", which the server
   * then does not offer. The SDK-based clients (the Inspector CLI, mcp-remote, Claude Code) would
   * start OAuth discovery and show its failure ("Interactive OAuth requires a TTY", "Dynamic Client
   * Registration rejected", a ZodError) instead of this reason; on a 403 each shows the body. With
   * OAuth, sign-in IS offered: the 401 and challenge the MCP authorization spec asks for. Whether
   * the token was missing or wrong is said; the token, or any part of it, never is. The wording
   * avoids "Authorization: <value>", which Claude Code's log redaction would blank out.
   */
  private refuse(why: "missing" | "malformed" | "wrong" | "too-large"): AuthRefusal {
    const text = {
      missing: "no token was sent (the request has no Authorization header)",
      malformed: "the Authorization header is not a Bearer token",
      wrong: "the token sent in the Authorization header is not this server's token",
      "too-large": `the token sent is over ${MAX_BEARER / 1024} KiB`,
    }[why];
    const message = `Refused by patchbay serve --http: ${text}${why === "wrong" && this.verifier ? " nor a signed JWT access token" : ""}.`;
    if (!this.verifier) return { status: 403, code: "PB_ERR_GATEWAY_UNAUTHORIZED", message };
    // Even a missing token gets TOKEN_INVALID here: its hint sends the caller to the authorization
    // server, where GATEWAY_UNAUTHORIZED's says this server has no OAuth sign-in.
    const code = "PB_ERR_GATEWAY_TOKEN_INVALID";
    const challenge = this.verifier.challenge(
      this.resourceMetadataUrl,
      why === "missing"
        ? undefined
        : { status: 401, code: "PB_ERR_GATEWAY_TOKEN_INVALID", message, error: "invalid_token" },
    );
    return { status: 401, code, message, challenge };
  }
}

// One-shot crypto.hash where it returns a Buffer (Node 20.12+): ~1 µs a request (state-dir.ts says more).
const sha256: (s: string) => Buffer = Buffer.isBuffer(crypto.hash?.("sha256", "", "buffer"))
  ? (s) => crypto.hash("sha256", s, "buffer")
  : (s) => createHash("sha256").update(s).digest();
