// Per-client identity's cost, over the real `serve --http` (demo MCP server on the host's thread, so
// the gateway's own work is most of the figure), with 50 clients configured, each with its own
// policy. One serve for both sides: two serves differ by ±10% between processes on this machine,
// more than what is measured. The operator's token takes the single-token path every gateway had
// before (no policy, no gate). Interleaved rounds, one SDK session each, p50 of each round's calls:
//   tools/call through a policy'd client (token hashed, looked up, policy checked) × the operator;
//   tools/list by one of the 50 clients (each tool checked against its policy, which lets all
//   through) × the operator's.
//   tools/call with an OAuth access token (a JWT from an issuer on 127.0.0.1 whose keys are already
//   fetched: warm JWKS) × the operator.
// Goals: call ≤ 1.05×, list ≤ 1.1×, OAuth call ≤ 1.1×. Needs `npm run build`.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createServer } from "node:http";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { oneServerConfig } from "./connectors.mjs";
import { figure, median, percentile } from "./figures.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const SEQ = Number(process.env.BENCH_CLIENTS_SEQ ?? 600);
const LISTS = Number(process.env.BENCH_CLIENTS_LISTS ?? 300);
const ROUNDS = 7;
const OPERATOR = "bench-operator-token-0123456789";
const server = path.join(root, "servers", "demo-mcp.mjs");
const sha = (s) => createHash("sha256").update(s).digest("hex");
const clientToken = (i) => `bench-client-${i}-token-0123456789`;

const AUDIENCE = "https://bench.test/mcp";

/** An issuer on 127.0.0.1: its metadata and key set, and a token it signed for the bench's OAuth client. */
async function issuer() {
  const { publicKey, privateKey } = await generateKeyPair("RS256");
  const jwk = { ...(await exportJWK(publicKey)), kid: "bench", alg: "RS256", use: "sig" };
  const server = createServer((req, res) => {
    const url = `http://127.0.0.1:${server.address().port}`;
    res.setHeader("content-type", "application/json");
    if (req.url === "/jwks") return res.end(JSON.stringify({ keys: [jwk] }));
    if (req.url?.startsWith("/.well-known/")) return res.end(JSON.stringify({ issuer: url, jwks_uri: `${url}/jwks` }));
    res.statusCode = 404;
    res.end("{}");
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${server.address().port}`;
  const token = await new SignJWT({ client_id: "bench-oauth" })
    .setProtectedHeader({ alg: "RS256", kid: "bench" })
    .setIssuer(url)
    .setAudience(AUDIENCE)
    .setIssuedAt()
    .setExpirationTime("2h")
    .sign(privateKey);
  return { url, token, close: () => server.close() };
}

function serveConfig(dir, clients, idp) {
  mkdirSync(dir, { recursive: true });
  const file = oneServerConfig(dir, "demo", process.execPath, [server], "host");
  const doc = JSON.parse(readFileSync(file, "utf8"));
  doc.gateway = { clients: {} };
  for (let i = 0; i < clients; i++)
    doc.gateway.clients[`c${i}`] = {
      tokenSha256: sha(clientToken(i)),
      // Client 0 (the one measured) sees every tool through a glob, so its list is as long as the
      // operator's and each entry pays the policy check; the others each a different part.
      expose: { "mcpConnectors/demo": i === 0 ? ["x_*", "*"] : [`tool_${i}`, "echo"] },
    };
  doc.gateway.oauth = {
    issuer: idp.url,
    audience: AUDIENCE,
    clients: { "oauth-bench": { match: { client_id: "bench-oauth" }, expose: { "mcpConnectors/demo": ["x_*", "*"] } } },
  };
  writeFileSync(file, JSON.stringify(doc));
  return file;
}

function startServe(file) {
  const proc = spawn(
    process.execPath,
    [path.join(root, "bin", "patchbay.mjs"), "serve", "--http", "--port", "0", "--config", file],
    {
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", PATCHBAY_TOKEN: OPERATOR },
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  let err = "";
  return new Promise((resolve, reject) => {
    proc.stderr.on("data", (d) => {
      err += d;
      const m = /Streamable HTTP at (http:\/\/\S+\/mcp)/.exec(err);
      if (m) resolve({ url: m[1], stop: () => proc.kill("SIGTERM") });
    });
    proc.on("exit", (code) => reject(new Error(`serve --http exited ${code}:\n${err}`)));
  });
}

// The SDK's transport hands every fetch one shared AbortSignal and undici leaves a listener on it
// per request (a warning past 1,500 requests, and a growing list); this bench never aborts, so each
// request goes without it.
const fetchWithoutSharedSignal = (url, init) => fetch(url, { ...init, signal: undefined });

async function session(url, token) {
  const client = new Client({ name: "bench-clients", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
      fetch: fetchWithoutSharedSignal,
    }),
  );
  return client;
}

async function p50(n, fn) {
  for (let i = 0; i < 50; i++) await fn();
  const times = [];
  for (let i = 0; i < n; i++) {
    const t = process.hrtime.bigint();
    await fn();
    times.push(Number(process.hrtime.bigint() - t) / 1e3);
  }
  return percentile(times, 50);
}

const dir = mkdtempSync(path.join(os.tmpdir(), "pb-bench-clients-"));
const idp = await issuer();
const many = await startServe(serveConfig(path.join(dir, "clients"), 50, idp));
const operator = await session(many.url, OPERATOR);
const client = await session(many.url, clientToken(0));
const oauth = await session(many.url, idp.token);
const listed = (await client.listTools()).tools.map((t) => t.name).join();
const all = (await operator.listTools()).tools.map((t) => t.name).join();
if (listed !== all) throw new Error(`client 0 should see every tool (${all}), saw ${listed}`);
const echo = (c) => () => c.callTool({ name: "demo__echo", arguments: { text: "hi" } });

const call = { single: [], client: [], oauth: [] };
const list = { single: [], client: [] };
// The order turns each round, so no side always runs first (or right after another's burst).
const steps = [
  async () => call.single.push(await p50(SEQ, echo(operator))),
  async () => call.client.push(await p50(SEQ, echo(client))),
  async () => call.oauth.push(await p50(SEQ, echo(oauth))),
  async () => list.single.push(await p50(LISTS, () => operator.listTools())),
  async () => list.client.push(await p50(LISTS, () => client.listTools())),
];
for (let r = 0; r < ROUNDS; r++) for (let i = 0; i < steps.length; i++) await steps[(i + r) % steps.length]();
await operator.close();
await client.close();
await oauth.close();
idp.close();
many.stop();
rmSync(dir, { recursive: true, force: true });

const us = (xs) => `${median(xs).toFixed(0)} µs`;
figure(
  "tools/call p50, policy'd client (× single token)",
  median(call.client) / median(call.single),
  1.05,
  "×",
  `(${us(call.client)} vs ${us(call.single)}; 50 clients configured)`,
);
figure(
  "tools/list p50, one of 50 clients (× the operator)",
  median(list.client) / median(list.single),
  1.1,
  "×",
  `(${us(list.client)} vs ${us(list.single)})`,
);
figure(
  "tools/call p50, OAuth access token, warm JWKS (× single token)",
  median(call.oauth) / median(call.single),
  1.1,
  "×",
  `(${us(call.oauth)} vs ${us(call.single)}; an accepted token is remembered until it expires, at most 60 s)`,
);
