/**
 * `patchbay status --peers URL,...`: one status across replicas. Each replica's GET /status is
 * read with the bearer token (PATCHBAY_TOKEN, else this config's .patchbay/token), all at once,
 * each bounded by PEER_TIMEOUT_MS; one row per replica and a row of totals. A replica that does
 * not answer gets its row and its reason (PB_ERR_GATEWAY_PEER_UNREACHABLE), and the exit is 1.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { EXIT, pbError, toWire, type ExitCode, type WireError } from "../../errors.js";
import type { StatusDocument } from "../../gateway/serve.js";
import { table, type Output } from "../render.js";

const PEER_TIMEOUT_MS = 5_000;

export type PeerAnswer =
  | { url: string; ok: true; status: StatusDocument }
  | { url: string; ok: false; error: WireError };

export interface PeerTotals {
  replicas: number;
  answering: number;
  sessions: number;
  instances: number;
  healthy: number;
  calls: number;
  errors: number;
}

/** `http://h:p`, `http://h:p/mcp` or `http://h:p/status` → the replica's /status URL. */
export function statusUrl(peer: string): string {
  let url: URL;
  try {
    url = new URL(peer.includes("://") ? peer : `http://${peer}`);
  } catch {
    throw pbError(
      "PB_ERR_USAGE",
      `--peers: ${JSON.stringify(peer.slice(0, 100))} is not a URL (expected e.g. http://10.0.0.5:7777).`,
      { flag: "peers" },
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw pbError("PB_ERR_USAGE", `--peers: ${url.protocol} is not http: or https:.`, { flag: "peers" });
  url.pathname = url.pathname.replace(/\/(mcp|status)?\/?$/, "") + "/status";
  return url.toString();
}

/** The token to present: PATCHBAY_TOKEN, else the token file next to this config, else none. */
export function peerToken(
  configFile: string | null,
  env: Record<string, string | undefined> = process.env,
): string | null {
  const fromEnv = env.PATCHBAY_TOKEN?.trim();
  if (fromEnv) return fromEnv;
  if (!configFile) return null;
  try {
    return readFileSync(path.join(path.dirname(configFile), ".patchbay", "token"), "utf8").trim() || null;
  } catch {
    return null;
  }
}

export async function askPeers(peers: readonly string[], token: string | null): Promise<PeerAnswer[]> {
  return Promise.all(
    peers.map(async (peer): Promise<PeerAnswer> => {
      const url = statusUrl(peer);
      const unreachable = (why: string): PeerAnswer => ({
        url,
        ok: false,
        error: toWire(pbError("PB_ERR_GATEWAY_PEER_UNREACHABLE", `${url}: ${why}.`, { url })),
      });
      try {
        const res = await fetch(url, {
          headers: token ? { Authorization: `Bearer ${token}` } : {},
          signal: AbortSignal.timeout(PEER_TIMEOUT_MS),
        });
        if (!res.ok) return unreachable(`HTTP ${res.status}${await refusal(res)}`);
        const doc = (await res.json()) as StatusDocument;
        if (!doc || typeof doc !== "object" || !Array.isArray(doc.instances))
          return unreachable("the answer is not a patchbay status document");
        return { url, ok: true, status: doc };
      } catch (err) {
        const e = err as Error & { cause?: { code?: string; message?: string } };
        if (e.name === "TimeoutError") return unreachable(`no answer within ${PEER_TIMEOUT_MS} ms`);
        // fetch refuses the ports browsers block (1, 9, 6000, ...) before connecting: "bad port", no code.
        if (e.cause?.message === "bad port")
          return unreachable(
            `fetch refuses to connect to port ${new URL(url).port} (a port browsers block); use another`,
          );
        return unreachable(e.cause?.code ?? e.cause?.message ?? e.message);
      }
    }),
  );
}

export function totalsOf(answers: readonly PeerAnswer[]): PeerTotals {
  const t: PeerTotals = {
    replicas: answers.length,
    answering: 0,
    sessions: 0,
    instances: 0,
    healthy: 0,
    calls: 0,
    errors: 0,
  };
  for (const a of answers) {
    if (!a.ok) continue;
    t.answering++;
    t.sessions += a.status.httpSessions?.open ?? 0;
    t.instances += a.status.instances.length;
    t.healthy += a.status.instances.filter((i) => i.healthy).length;
    t.calls += a.status.instances.reduce((n, i) => n + (i.calls ?? 0), 0);
    t.errors += a.status.instances.reduce((n, i) => n + (i.errors ?? 0), 0);
  }
  return t;
}

export async function peersStatus(
  peers: readonly string[],
  token: string | null,
  asJson: boolean,
  io: Output,
): Promise<ExitCode> {
  const answers = await askPeers(peers, token);
  const totals = totalsOf(answers);
  const code = totals.answering === totals.replicas ? EXIT.OK : EXIT.UNHEALTHY;
  if (asJson) {
    io.out(JSON.stringify({ peers: answers, totals }, null, 2));
    return code;
  }
  const up = (t: number) => `${Math.max(0, Math.round((Date.now() - t) / 1000))}s`;
  const rows = answers.map((a) => {
    if (!a.ok) return [a.url, "unreachable", "-", "-", "-", "-", "-", "-"];
    const s = a.status;
    const calls = s.instances.reduce((n, i) => n + (i.calls ?? 0), 0);
    const errors = s.instances.reduce((n, i) => n + (i.errors ?? 0), 0);
    const healthy = s.instances.filter((i) => i.healthy).length;
    return [
      a.url,
      `pid ${s.pid}, up ${up(s.startedAt)}`,
      s.httpSessions?.mode ?? "-",
      String(s.httpSessions?.open ?? 0),
      `${healthy}/${s.instances.length}`,
      String(s.tools),
      String(calls),
      String(errors),
    ];
  });
  io.out(
    table([
      ["REPLICA", "SERVER", "MODE", "SESSIONS", "HEALTHY", "TOOLS", "CALLS", "ERRORS"],
      ...rows,
      [
        `total (${totals.answering}/${totals.replicas} answering)`,
        "",
        "",
        String(totals.sessions),
        `${totals.healthy}/${totals.instances}`,
        "",
        String(totals.calls),
        String(totals.errors),
      ],
    ]),
  );
  for (const a of answers) if (!a.ok) io.out(`  [${a.error.code}] ${a.error.message}`);
  return code;
}

/** What a replica's refusal says, when it is the token (its body's code; a 403 may also be Host/Origin). */
async function refusal(res: Response): Promise<string> {
  const body = (await res.json().catch(() => null)) as { error?: { code?: unknown } } | null;
  return body?.error?.code === "PB_ERR_GATEWAY_UNAUTHORIZED" ? " (the token is not this replica's)" : "";
}
