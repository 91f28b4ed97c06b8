/**
 * mcp-remote's config schema: where the server is (url or command), and what this client offers
 * the server (roots, sampling through a local model, an elicitation policy, a log level).
 */
import { z } from "patchbay/plugin";

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}

const secretText = z.string().meta({ secret: true });

const root = z.strictObject({
  uri: z
    .string()
    .startsWith("file://", "a root is a file:// URI")
    .meta({ description: "A file:// URI the server may work in." }),
  name: z.string().optional(),
});

const oauth = z
  .strictObject({
    flow: z.enum(["client_credentials", "authorization_code"]).default("client_credentials").meta({
      description:
        '"client_credentials" (machine to machine; needs client_id and client_secret or private_key_pem) or "authorization_code" (PKCE; a person approves once, tokens are kept and refreshed).',
    }),
    client_id: z.string().min(1).optional().meta({
      description: "The registered OAuth client id. authorization_code without it registers a client dynamically.",
    }),
    client_secret: secretText
      .optional()
      .meta({ secret: true, description: "The client secret (client_secret_basic)." }),
    private_key_pem: secretText.optional().meta({
      secret: true,
      description: "client_credentials with private_key_jwt: the PEM private key that signs the client assertion.",
    }),
    signing_algorithm: z
      .string()
      .default("RS256")
      .meta({ description: "private_key_jwt signing algorithm, e.g. RS256 or ES256." }),
    scope: z
      .string()
      .optional()
      .meta({ description: "Scopes to ask for (space separated); by default the server's advertised ones." }),
    redirect_port: z.number().int().min(0).max(65535).default(0).meta({
      description:
        "authorization_code: port of the loopback redirect listener on 127.0.0.1 (0 = any free port; fix it when the client is pre-registered with a redirect URI).",
    }),
    authorize: z.enum(["print", "fetch"]).default("print").meta({
      description:
        'authorization_code: "print" logs the authorization URL for a person to open; "fetch" follows it without a browser (only for authorization servers that approve without a person).',
    }),
    token_store: z.string().default(".patchbay/oauth").meta({
      path: true,
      description: "Folder of the token files (one per instance, mode 0600), relative to connectors.json.",
    }),
  })
  .superRefine((o, issue) => {
    if (o.flow === "client_credentials" && !o.client_id)
      issue.addIssue({ code: "custom", message: "client_credentials needs client_id", path: ["client_id"] });
    if (o.flow === "client_credentials" && !o.client_secret && !o.private_key_pem)
      issue.addIssue({
        code: "custom",
        message: "client_credentials needs client_secret or private_key_pem",
        path: ["client_secret"],
      });
  })
  .meta({
    description: "OAuth 2.1 through the SDK's client auth: client credentials, or authorization code with PKCE.",
  });

export const config = z
  .strictObject({
    url: z.string().refine(isHttpUrl, "url must be an http:// or https:// URL").optional().meta({
      description:
        "Streamable HTTP endpoint of the server, e.g. https://mcp.example.com/mcp. Exactly one of url and command.",
    }),
    headers: z.record(z.string(), secretText).optional().meta({
      secret: true,
      description: "HTTP headers sent with every request (url only); values are secrets, scrubbed from all output.",
    }),
    oauth: oauth.optional(),
    command: z.string().min(1).optional().meta({
      description: 'Program that serves MCP on stdio ("node" runs this Node). Exactly one of url and command.',
    }),
    args: z
      .array(z.string())
      .default([])
      .meta({ description: "Arguments for command. Visible in the process list: pass secrets through env instead." }),
    cwd: z
      .string()
      .default(".")
      .meta({ path: true, description: "Working folder of the command (relative to connectors.json)." }),
    env: z.record(z.string(), secretText).optional().meta({
      secret: true,
      description: "Environment for the command, on top of a minimal safe set (PATH, HOME, ...); values are secrets.",
    }),
    connect_timeout_ms: z
      .number()
      .int()
      .positive()
      .default(10_000)
      .meta({ description: "How long connecting (start + initialize) may take." }),
    roots: z.array(root).optional().meta({
      description:
        "Roots offered to the server (roots/list). Absent: the client does not declare the roots capability.",
    }),
    sampling: z
      .strictObject({
        model: z
          .string()
          .regex(/^localModels\/[^/]+$/, 'sampling.model names a localModels instance, e.g. "localModels/default"'),
        max_tokens: z.number().int().positive().max(100_000).default(1_024),
      })
      .optional()
      .meta({
        description:
          'Serve the server\'s sampling requests with this localModels instance (grant it in "grants"). Absent: sampling is not declared.',
      }),
    client_requests: z
      .strictObject({
        per_minute: z
          .number()
          .int()
          .min(0)
          .max(10_000)
          .default(30)
          .meta({ description: "Sampling, elicitation and roots requests the server may make in any minute." }),
        total: z
          .number()
          .int()
          .min(0)
          .default(1_000)
          .meta({ description: "Requests the server may make over the instance's life (a restart starts again)." }),
        outside_calls: z.boolean().default(false).meta({
          description:
            "Also accept them while no tool call of this instance is in flight (a server that works on its own).",
        }),
      })
      .prefault({})
      .meta({
        description:
          "Bounds on what the server may ask of this client (sampling, elicitation, roots); past them it gets PB_ERR_CLIENT_REQUEST_REFUSED.",
      }),
    elicitation: z.enum(["decline", "accept_defaults"]).default("decline").meta({
      description:
        '"decline" (default) answers every elicitation request with decline; "accept_defaults" accepts with the defaults the request\'s schema gives (for unattended runs).',
    }),
    log_level: z
      .enum(["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"])
      .default("info")
      .meta({
        description:
          "The least severe server log message (notifications/message) asked for; they land in the instance log.",
      }),
  })
  .superRefine((c, issue) => {
    if ((c.url === undefined) === (c.command === undefined)) {
      issue.addIssue({
        code: "custom",
        message: "set exactly one of url (Streamable HTTP) and command (stdio)",
        path: [c.url === undefined ? "url" : "command"],
      });
    }
    if (c.url !== undefined) {
      if (c.env !== undefined)
        issue.addIssue({ code: "custom", message: "env applies to command only", path: ["env"] });
      if (c.args.length > 0) issue.addIssue({ code: "custom", message: "args apply to command only", path: ["args"] });
    }
    if (c.command !== undefined && c.headers !== undefined) {
      issue.addIssue({ code: "custom", message: "headers apply to url only", path: ["headers"] });
    }
    if (c.command !== undefined && c.oauth !== undefined) {
      issue.addIssue({ code: "custom", message: "oauth applies to url only", path: ["oauth"] });
    }
  });

export type McpRemoteConfig = z.output<typeof config>;
