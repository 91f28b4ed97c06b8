/**
 * OAuth 2.1 for a Streamable HTTP server, through the SDK's client auth (`auth()` does discovery,
 * dynamic registration, PKCE, token exchange and refresh). This file only supplies what the SDK
 * asks a client for:
 * - client credentials (client_secret_basic/post, or private_key_jwt): the SDK's own providers;
 * - authorization code + PKCE, for a pre-registered client (client_id given) or a dynamically
 *   registered one: a loopback redirect listener on 127.0.0.1, the authorization URL logged for
 *   the operator to open (or, with `authorize: "fetch"`, followed headlessly, for authorization
 *   servers that approve without a person, like test servers), tokens and the registration kept
 *   in a file of mode 0600 under .patchbay/ so a restart needs no new login.
 * Tokens are never logged; the URL logged carries no secret (PKCE's verifier stays here).
 */
import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { ClientCredentialsProvider, PrivateKeyJwtProvider } from "@modelcontextprotocol/sdk/client/auth-extensions.js";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import type { PluginContext } from "patchbay/plugin";
import type { McpRemoteConfig } from "./config.js";

type OAuthConfig = NonNullable<McpRemoteConfig["oauth"]>;

interface Stored {
  client?: OAuthClientInformationMixed;
  tokens?: OAuthTokens;
}

/** The provider for `cfg.oauth`, or undefined when the instance does not use OAuth. */
export function makeAuthProvider(cfg: McpRemoteConfig, ctx: PluginContext): OAuthClientProvider | undefined {
  const o = cfg.oauth;
  if (!o) return undefined;
  if (o.flow === "client_credentials") {
    if (o.private_key_pem) {
      return new PrivateKeyJwtProvider({
        clientId: o.client_id!,
        privateKey: o.private_key_pem,
        algorithm: o.signing_algorithm,
        clientName: "patchbay-mcp-remote",
        scope: o.scope,
      });
    }
    return new ClientCredentialsProvider({
      clientId: o.client_id!,
      clientSecret: o.client_secret ?? "",
      clientName: "patchbay-mcp-remote",
      scope: o.scope,
    });
  }
  return new AuthCodeProvider(o, ctx);
}

export class AuthCodeProvider implements OAuthClientProvider {
  private server: Server | null = null;
  private port = 0;
  private verifier = "";
  private expectedState = "";
  private waiting: { resolve(code: string): void; reject(err: Error): void } | null = null;
  private received: string | null = null;
  private readonly file: string;

  constructor(
    private readonly o: OAuthConfig,
    private readonly ctx: PluginContext,
  ) {
    this.file = join(o.token_store, `${ctx.instance.replace(/[^A-Za-z0-9._-]/g, "_")}.json`);
  }

  /** Starts the loopback redirect listener (before the SDK asks for redirectUrl). */
  async start(): Promise<void> {
    if (this.server) return;
    const server = createServer((req, res) => {
      const url = new URL(req.url ?? "/", "http://127.0.0.1");
      const code = url.searchParams.get("code");
      if (url.pathname !== "/callback" || !code || url.searchParams.get("state") !== this.expectedState) {
        res
          .writeHead(400, { "content-type": "text/plain" })
          .end("Not an authorization response for this Patchbay connector.");
        return;
      }
      res.writeHead(200, { "content-type": "text/plain" }).end("Patchbay is authorized. You can close this window.");
      if (this.waiting) this.waiting.resolve(code);
      else this.received = code;
      this.waiting = null;
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(this.o.redirect_port, "127.0.0.1", () => resolve());
    });
    server.unref();
    this.server = server;
    this.port = (server.address() as AddressInfo).port;
  }

  /** The authorization code the redirect delivered, within `ms`. */
  waitForCode(ms: number): Promise<string> {
    if (this.received) {
      const code = this.received;
      this.received = null;
      return Promise.resolve(code);
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting = null;
        reject(
          new Error(
            `no authorization arrived within ${ms} ms; open the logged authorization URL, or raise connect_timeout_ms`,
          ),
        );
      }, ms);
      this.waiting = {
        resolve: (c) => {
          clearTimeout(timer);
          resolve(c);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      };
    });
  }

  close(): void {
    this.server?.close();
    this.server = null;
    this.waiting?.reject(new Error("the connector closed"));
    this.waiting = null;
  }

  get redirectUrl(): string {
    return `http://127.0.0.1:${this.port}/callback`;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "patchbay-mcp-remote",
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: this.o.client_secret ? "client_secret_basic" : "none",
      ...(this.o.scope ? { scope: this.o.scope } : {}),
    };
  }

  state(): string {
    this.expectedState = randomBytes(16).toString("hex");
    return this.expectedState;
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    if (this.o.client_id)
      return { client_id: this.o.client_id, ...(this.o.client_secret ? { client_secret: this.o.client_secret } : {}) };
    return this.load().client;
  }

  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.store({ ...this.load(), client: info });
  }

  tokens(): OAuthTokens | undefined {
    return this.load().tokens;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.store({ ...this.load(), tokens });
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    this.ctx.log.warn("OAuth: authorization needed; open this URL in a browser on this machine", {
      url: url.toString(),
    });
    if (this.o.authorize !== "fetch") return;
    // Headless: follow the authorization server's redirects; an approving server ends at our listener.
    let next: URL = url;
    for (let hop = 0; hop < 10; hop++) {
      const res = await fetch(next, { redirect: "manual" });
      const location = res.headers.get("location");
      await res.body?.cancel();
      if (!location) return;
      next = new URL(location, next);
      if (next.origin === `http://127.0.0.1:${this.port}`) {
        await fetch(next).then((r) => r.body?.cancel());
        return;
      }
    }
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    return this.verifier;
  }

  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier"): void {
    const s = this.load();
    if (scope === "all" || scope === "client") delete s.client;
    if (scope === "all" || scope === "tokens") delete s.tokens;
    if (scope === "verifier") this.verifier = "";
    this.store(s);
  }

  private load(): Stored {
    try {
      return JSON.parse(readFileSync(this.file, "utf8")) as Stored;
    } catch {
      return {};
    }
  }

  private store(s: Stored): void {
    mkdirSync(this.o.token_store, { recursive: true, mode: 0o700 });
    writeFileSync(this.file, JSON.stringify(s), { mode: 0o600 });
    // writeFileSync's mode applies only when it creates the file.
    chmodSync(this.file, 0o600);
  }
}
