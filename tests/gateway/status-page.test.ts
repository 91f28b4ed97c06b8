/**
 * The status page of the real `serve --http` without a browser (status-page-browser.test.ts has
 * Chromium): sign-in by form sets an HttpOnly, SameSite=Strict session cookie and never puts the
 * token in a URL; a wrong token, no cookie, or a cookie from another serve with the same token is
 * refused; the page carries a strict CSP; /events streams the status document.
 */
import { createHash } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { cleanupTempDirs, waitFor } from "../helpers.js";
import { gatewayConfig, startHttpServe, type HttpServe } from "./_gateway.js";

afterAll(cleanupTempDirs);

async function signIn(s: HttpServe, token: string): Promise<Response> {
  return fetch(`${s.base}/signin`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ token }).toString(),
  });
}

const cookieOf = (res: Response) => (res.headers.get("set-cookie") ?? "").split(";")[0];

/** The first `data:` event of /events, then the stream is dropped. */
async function firstEvent(s: HttpServe, cookie: string): Promise<{ status: number; data?: unknown }> {
  const abort = new AbortController();
  const res = await fetch(`${s.base}/events`, { headers: { cookie }, signal: abort.signal });
  if (res.status !== 200) return { status: res.status };
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  let text = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    text += Buffer.from(value).toString("utf8");
    const m = /^data: (.*)\n\n/m.exec(text);
    if (m) {
      abort.abort();
      return { status: 200, data: JSON.parse(m[1]) };
    }
  }
  return { status: res.status };
}

describe("serve --http status page", () => {
  it("signs in by form into an HttpOnly SameSite=Strict cookie, serves the page under a strict CSP, and streams the status", async () => {
    const { file } = gatewayConfig();
    const s = await startHttpServe(file);
    try {
      const form = await fetch(`${s.base}/`);
      expect(form.status).toBe(200);
      const formHtml = await form.text();
      expect(formHtml).toContain('<form method="post" action="/signin">');
      expect(form.headers.get("content-security-policy")).toMatch(/script-src 'self';/);
      expect(form.headers.get("content-security-policy")).not.toContain("unsafe-inline");

      const wrong = await signIn(s, "not-the-token");
      expect(wrong.status).toBe(403);
      expect(wrong.headers.get("set-cookie")).toBeNull();
      expect(await wrong.text()).toContain("not this server&#39;s token");
      // A form past its 4 KiB bound is answered (not dropped), and the server goes on.
      const huge = await signIn(s, "x".repeat(64 * 1024));
      expect(huge.status).toBe(413);
      expect(huge.headers.get("set-cookie")).toBeNull();
      expect(await huge.text()).toContain("That form is over 4096 bytes: paste only the token.");

      const ok = await signIn(s, s.token);
      expect(ok.status).toBe(303);
      expect(ok.headers.get("location")).toBe("/");
      const setCookie = ok.headers.get("set-cookie") ?? "";
      expect(setCookie).toMatch(/^patchbay_page=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Strict; Path=\//);
      expect(setCookie).not.toContain(s.token);
      const cookie = cookieOf(ok);

      // Refusals the page lists: a request without the token, one to a path a client made up.
      expect((await fetch(`${s.base}/status`)).status).toBe(403);
      expect((await fetch(`${s.base}/%3Cscript%3Ex`, { headers: { authorization: `Bearer ${s.token}` } })).status).toBe(
        404,
      );
      // The page shows the boot as it stands, and a loaded machine can still be booting here: wait for
      // every instance to be up before reading its row.
      await waitFor(async () => {
        const res = await fetch(`${s.base}/status`, { headers: { authorization: `Bearer ${s.token}` } });
        const st = (await res.json()) as { booting: boolean; instances: { healthy: boolean }[] };
        if (st.booting || !st.instances.every((i) => i.healthy)) throw new Error("still booting");
      });
      const page = await fetch(`${s.base}/`, { headers: { cookie } });
      const html = await page.text();
      const refusals = /<table id="refusals">([\s\S]*?)<\/table>/.exec(html)?.[1] ?? "";
      expect(refusals).toMatch(/<td data-field="target">HTTP \/status<\/td><td>403<\/td>/);
      expect(refusals).toMatch(/<td data-field="target">HTTP other<\/td><td>404<\/td>/);
      expect(html).not.toContain("<script>x");
      expect(html).toContain('<tr data-id="mcpConnectors/gw" class="healthy">');
      expect(html).toContain('<script src="/page.js"></script>');
      expect(html).not.toMatch(/<script>/);
      expect(html).not.toContain(s.token);
      const js = await fetch(`${s.base}/page.js`);
      expect(js.headers.get("content-type")).toMatch(/^text\/javascript/);
      expect(await js.text()).toContain('new EventSource("/events")');

      const event = await firstEvent(s, cookie);
      expect(event.status).toBe(200);
      const data = event.data as { instances: { id: string; healthy: boolean }[]; summary: string };
      expect(data.instances.map((i) => i.id).sort()).toEqual(["mcpConnectors/gw", "memoryStores/primary"]);
      expect(data.summary).toMatch(/^2 of 2 instances healthy/);

      // /metrics and /status still want the token: the page's cookie opens the page only.
      expect((await fetch(`${s.base}/status`, { headers: { cookie } })).status).toBe(403);
      expect((await fetch(`${s.base}/metrics`, { headers: { cookie } })).status).toBe(403);

      const out = await fetch(`${s.base}/signout`, { method: "POST", redirect: "manual", headers: { cookie } });
      expect(out.status).toBe(303);
      expect(await (await fetch(`${s.base}/`, { headers: { cookie } })).text()).toContain('action="/signin"');
      expect((await firstEvent(s, cookie)).status).toBe(403);
    } finally {
      await s.stop();
    }
  });

  it("refuses a cookie from another serve with the same token, a foreign Origin, and events without a cookie", async () => {
    const a = await startHttpServe(gatewayConfig().file);
    const b = await startHttpServe(gatewayConfig().file);
    try {
      const cookie = cookieOf(await signIn(a, a.token));
      expect(await (await fetch(`${a.base}/`, { headers: { cookie } })).text()).toContain("data-id=");
      const elsewhere = await (await fetch(`${b.base}/`, { headers: { cookie } })).text();
      expect(elsewhere).toContain('action="/signin"');
      expect(elsewhere).not.toContain("data-id=");
      expect((await firstEvent(b, cookie)).status).toBe(403);
      expect((await firstEvent(a, "")).status).toBe(403);
      const foreign = await fetch(`${a.base}/signin`, {
        method: "POST",
        redirect: "manual",
        headers: { origin: "http://evil.example.com", "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ token: a.token }).toString(),
      });
      expect(foreign.status).toBe(403);
      expect(foreign.headers.get("set-cookie")).toBeNull();
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });

  it("lists each client with its limits, calls and refusals, each value escaped", async () => {
    const sha = (t: string) => createHash("sha256").update(t).digest("hex");
    const BOT = "bot-token-0123456789abcdef";
    const clients = {
      bot: { tokenSha256: sha(BOT), expose: { "mcpConnectors/gw": ["echo"] }, limits: { callsPerMinute: 2 } },
      "idle.one": { tokenSha256: sha("idle-token-0123456789abcdef"), expose: {} },
    };
    const s = await startHttpServe(gatewayConfig({ gateway: { clients } }).file);
    try {
      const bot = await s.connect(BOT);
      for (let i = 0; i < 3; i++) await bot.callTool({ name: "gw__echo", arguments: { text: "x" } }).catch(() => null);
      await bot.callTool({ name: "gw__whoami", arguments: {} }).catch(() => null);
      await bot.close();
      const cookie = cookieOf(await signIn(s, s.token));
      const html = await (await fetch(`${s.base}/`, { headers: { cookie } })).text();
      const row = (id: string) => new RegExp(`<tr data-client="${id}">(.*?)</tr>`).exec(html)?.[1] ?? "";
      const field = (id: string, name: string) => new RegExp(`data-field="${name}">([^<]*)<`).exec(row(id))?.[1];
      expect(html).toContain('<table id="clients">');
      expect(field("bot", "limits")).toBe("2/min");
      expect(field("bot", "calls")).toBe("2");
      expect(field("bot", "inFlight")).toBe("0");
      expect(field("bot", "refusedByQuota")).toBe("1");
      expect(field("bot", "refusedByPolicy")).toBe("1");
      expect(field("idle.one", "calls")).toBe("0");
      // Both refusals are among the recent ones, named by client, with their codes.
      expect(html).toMatch(/client bot: tool &quot;gw__whoami&quot;<\/td><td>PB_ERR_CLIENT_FORBIDDEN/);
      expect(html).toMatch(/client bot: a request past its limits<\/td><td>PB_ERR_CLIENT_QUOTA/);
      expect(html).not.toContain(BOT);
    } finally {
      await s.stop();
    }
  });
});
