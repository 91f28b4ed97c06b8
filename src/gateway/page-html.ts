/**
 * The status page's HTML, rendered on the server so it reads without JavaScript (a reload shows
 * the present). Every value that comes from an instance, a plugin or an upstream server (ids,
 * tool names, error messages) passes through escapeHtml: a tool named `<img src=x onerror=...>`
 * is text. The live script (assets/status-page/page.js) fills the same table from /events.
 */
import type { Refusal } from "./refusals.js";
import type { StatusDocument } from "./status-document.js";

interface PageTool {
  name: string;
  instance: string;
  /** The upstream's own name of the tool (for mcp; untrusted). */
  target: string;
}

export interface PageData {
  status: StatusDocument;
  tools: PageTool[];
  refusals: Refusal[];
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
  const { status, tools, refusals } = data;
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

export function summary(status: StatusDocument): string {
  const healthy = status.instances.filter((i) => i.healthy).length;
  return `${status.booting ? "Booting. " : ""}${healthy} of ${status.instances.length} instances healthy; ${status.tools} tools; pid ${status.pid}; up since ${new Date(status.startedAt).toISOString()}.`;
}
