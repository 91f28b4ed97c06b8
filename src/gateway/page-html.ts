/**
 * The status page's HTML, rendered on the server so it reads without JavaScript (a reload shows
 * the present). Every value that comes from an instance, a plugin or an upstream server (ids,
 * tool names, error messages) passes through escapeHtml: a tool named `<img src=x onerror=...>`
 * is text. The live script (assets/status-page/page.js) fills the same table from /events.
 */
import type { Refusal } from "./refusals.js";
import type { StatusDocument } from "./status-document.js";
import type { ClientUsageRow } from "./clients/usage.js";

interface PageTool {
  name: string;
  instance: string;
  /** The upstream's own name of the tool (for mcp; untrusted). */
  target: string;
}

/** A configured gateway client: how it signs in, its limits, and its calls and refusals since start. */
export interface PageClient extends ClientUsageRow {
  id: string;
  identity: "token" | "oauth";
  limits: { callsPerMinute: number | null; concurrent: number | null };
}

export interface PageData {
  status: StatusDocument;
  tools: PageTool[];
  refusals: Refusal[];
  clients: PageClient[];
}

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

function escapeHtml(value: unknown): string {
  return String(value).replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

/** At most this many tools are listed (the page is for a person; the rest are counted). */
const MAX_PAGE_TOOLS = 500;

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="/page.css">
</head>
<body>
${body}
</body>
</html>
`;
}

export function signInPage(problem: string | null): string {
  return layout(
    "Sign in: patchbay serve",
    `<main class="signin">
<h1>patchbay serve</h1>
<p>Enter this server's token (<code>PATCHBAY_TOKEN</code>, or the file <code>.patchbay/token</code> next to connectors.json).</p>
${problem ? `<p class="problem" role="alert">${escapeHtml(problem)}</p>` : ""}
<form method="post" action="/signin">
<label for="token">Token</label>
<input id="token" name="token" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>
</main>`,
  );
}

const ms = (v: number | null) => (v === null ? "–" : `${v} ms`);

function instanceRow(i: StatusDocument["instances"][number]): string {
  const health = i.healthy ? "healthy" : "unhealthy";
  const cells = [
    ["id", i.id],
    ["plugin", i.plugin],
    ["state", i.state],
    ["health", health],
    ["restarts", i.restarts],
    ["calls", i.calls],
    ["errors", i.errors],
    ["p50", ms(i.p50Ms)],
    ["p99", ms(i.p99Ms)],
    ["refused", i.clientRequests?.refused ?? 0],
    ["error", i.error ? `${i.error.code}: ${i.error.message}` : ""],
  ];
  return `<tr data-id="${escapeHtml(i.id)}" class="${health}">${cells
    .map(([k, v]) => `<td data-field="${k}">${escapeHtml(v)}</td>`)
    .join("")}</tr>`;
}

export function statusPage(data: PageData): string {
  const { status, tools, refusals, clients } = data;
  const sessions = status.httpSessions;
  const shown = tools.slice(0, MAX_PAGE_TOOLS);
  return layout(
    "patchbay serve",
    `<header>
<h1>patchbay serve</h1>
<form method="post" action="/signout"><button type="submit">Sign out</button></form>
</header>
<main>
<p id="summary" aria-live="polite">${escapeHtml(summary(status))}</p>
<p class="live" id="live">Live updates need JavaScript; reload the page to see the present.</p>
<h2>Instances</h2>
<table id="instances">
<thead><tr><th scope="col">Instance</th><th scope="col">Plugin</th><th scope="col">State</th><th scope="col">Health</th><th scope="col">Restarts</th><th scope="col">Calls</th><th scope="col">Errors</th><th scope="col">p50</th><th scope="col">p99</th><th scope="col"><abbr title="sampling, elicitation and roots requests refused">Refused</abbr></th><th scope="col">Last error</th></tr></thead>
<tbody>
${status.instances.map(instanceRow).join("\n")}
</tbody>
</table>
<h2>Sessions</h2>
<p id="sessions">${escapeHtml(sessions ? `${sessions.mode}: ${sessions.open} open, ${sessions.evicted} evicted` : "no HTTP transport")}</p>
${clients.length > 0 ? clientsTable(clients) : ""}
<h2>Recent refusals</h2>
${
  refusals.length === 0
    ? '<p id="refusals">None since this server started.</p>'
    : `<table id="refusals">
<thead><tr><th scope="col">When</th><th scope="col">What</th><th scope="col">Code</th></tr></thead>
<tbody>
${refusals.map((r) => `<tr><td>${escapeHtml(new Date(r.at).toISOString())}</td><td data-field="target">${escapeHtml(r.what)}</td><td>${escapeHtml(r.code)}</td></tr>`).join("\n")}
</tbody>
</table>`
}
<h2>Tools</h2>
<table id="tools">
<thead><tr><th scope="col">Tool</th><th scope="col">Instance</th><th scope="col">Upstream name</th></tr></thead>
<tbody>
${shown.map((t) => `<tr><td>${escapeHtml(t.name)}</td><td>${escapeHtml(t.instance)}</td><td data-field="target">${escapeHtml(t.target)}</td></tr>`).join("\n")}
</tbody>
</table>
${tools.length > shown.length ? `<p>${tools.length - shown.length} more tools not listed.</p>` : ""}
</main>
<script src="/page.js"></script>`,
  );
}

function clientsTable(clients: PageClient[]): string {
  const limits = (l: PageClient["limits"]) =>
    [l.callsPerMinute !== null && `${l.callsPerMinute}/min`, l.concurrent !== null && `${l.concurrent} at once`]
      .filter(Boolean)
      .join(", ") || "none";
  const row = (c: PageClient) =>
    `<tr data-client="${escapeHtml(c.id)}">${[
      ["id", c.id],
      ["identity", c.identity === "oauth" ? "OAuth" : "token"],
      ["limits", limits(c.limits)],
      ["calls", c.calls],
      ["inFlight", c.inFlight],
      ["refusedByPolicy", c.refusedByPolicy],
      ["refusedByQuota", c.refusedByQuota],
    ]
      .map(([k, v]) => `<td data-field="${k}">${escapeHtml(v)}</td>`)
      .join("")}</tr>`;
  return `<h2>Clients</h2>
<p>Since this server started; reload the page to see the present.</p>
<table id="clients">
<thead><tr><th scope="col">Client</th><th scope="col">Signs in with</th><th scope="col">Limits</th><th scope="col">Calls</th><th scope="col">In flight</th><th scope="col">Refused by policy</th><th scope="col">Refused by quota</th></tr></thead>
<tbody>
${clients.map(row).join("\n")}
</tbody>
</table>`;
}

export function summary(status: StatusDocument): string {
  const healthy = status.instances.filter((i) => i.healthy).length;
  return `${status.booting ? "Booting. " : ""}${healthy} of ${status.instances.length} instances healthy; ${status.tools} tools; pid ${status.pid}; up since ${new Date(status.startedAt).toISOString()}.`;
}
