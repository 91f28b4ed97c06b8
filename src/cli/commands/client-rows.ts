/**
 * What `patchbay client list` shows of each client, read from connectors.json as written: no
 * variable is resolved, so a token from ${VAR} is named by its variable, never by its value, and a
 * hashed token only by the first characters of its hash.
 */
type Json = Record<string, unknown>;

export interface ClientRow {
  id: string;
  /** How the client proves who it is: "token ${VAR}", "tokenSha256 ab12cd34…", "oauth sub=…". */
  identity: string;
  expose: Record<string, unknown>;
  limits: { callsPerMinute?: number; concurrent?: number } | null;
  metrics: boolean;
}

const asObject = (v: unknown): Json => (v && typeof v === "object" && !Array.isArray(v) ? (v as Json) : {});

export function clientRows(gateway: Json): ClientRow[] {
  const rows: ClientRow[] = [];
  for (const [id, raw] of Object.entries(asObject(gateway.clients))) {
    if (id.startsWith("_")) continue;
    const c = asObject(raw);
    const identity =
      typeof c.token === "string"
        ? `token ${/^\$\{[^}]+\}$/.test(c.token) ? c.token : "(inline: refused at boot)"}`
        : typeof c.tokenSha256 === "string"
          ? `tokenSha256 ${c.tokenSha256.slice(0, 8)}…`
          : "(no token)";
    rows.push(row(id, identity, c));
  }
  for (const [id, raw] of Object.entries(asObject(asObject(gateway.oauth).clients))) {
    if (id.startsWith("_")) continue;
    const c = asObject(raw);
    const match = Object.entries(asObject(c.match))[0];
    rows.push(row(id, `oauth ${match ? `${match[0]}=${String(match[1])}` : "(no match)"}`, c));
  }
  return rows;
}

function row(id: string, identity: string, c: Json): ClientRow {
  const limits = asObject(c.limits);
  return {
    id,
    identity,
    expose: asObject(c.expose),
    limits: Object.keys(limits).length > 0 ? (limits as ClientRow["limits"]) : null,
    metrics: c.metrics === true,
  };
}

export function renderClientRows(rows: readonly ClientRow[], file: string): string {
  if (rows.length === 0)
    return `No clients in ${file}: only PATCHBAY_TOKEN (the operator) may use the gateway. Add one with \`patchbay client add <id>\`.`;
  const lines = [`${rows.length} client(s) in ${file}:`];
  for (const r of rows) {
    const sees = Object.entries(r.expose).map(([k, v]) =>
      v === true ? k : Array.isArray(v) ? `${k}=${v.join(",")}` : `${k}=none`,
    );
    const limits = r.limits
      ? [
          r.limits.callsPerMinute && `${r.limits.callsPerMinute}/min`,
          r.limits.concurrent && `${r.limits.concurrent} at once`,
        ]
          .filter(Boolean)
          .join(", ")
      : "no limits";
    lines.push(`  ${r.id}  ${r.identity}`);
    lines.push(`    sees: ${sees.join(" ") || "nothing"}; ${limits}${r.metrics ? "; may read /metrics" : ""}`);
  }
  return lines.join("\n");
}
