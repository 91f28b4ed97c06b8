/**
 * The status page of `serve --http` at GET /, for a person: page-html.ts renders it,
 * assets/status-page/ holds its one script and stylesheet, /events streams the same data as
 * `status --json` (Server-Sent Events) so the page updates without a reload.
 *
 * Sign-in without the token in a URL (it would land in history, logs and Referer headers): a form
 * POSTs it, and a correct one gets a random session cookie, HttpOnly (no script reads it) and
 * SameSite=Strict (no other site's page sends it). The sessions live in this process only, so a
 * cookie from another `serve` (even one with the same token) is refused, and a restart signs
 * everyone out. The Host/Origin check (origin.ts) runs before any of this, as for /mcp. A strict
 * Content-Security-Policy allows only this server's script and style: no inline script runs even
 * if something escaped the escaping.
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import path from "node:path";
import { packageRoot } from "../paths.js";
import type { ExtraRoutes } from "./http.js";
import { reject } from "./http-replies.js";
import { type PageData, signInPage, statusPage, summary } from "./page-html.js";

const COOKIE = "patchbay_page";
/** Signed-in browsers remembered at once (the oldest is signed out past it). */
const MAX_PAGE_SESSIONS = 64;
const SESSION_MS = 12 * 60 * 60_000;
/** Open /events streams at once: each holds a connection and a timer. */
const MAX_STREAMS = 32;
const STREAM_EVERY_MS = 1_000;
const MAX_SIGNIN_BODY = 4_096;

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; " +
  "form-action 'self'; frame-ancestors 'none'; base-uri 'none'";
const PAGE_HEADERS = {
  "content-security-policy": CSP,
  "x-content-type-options": "nosniff",
  // Not no-referrer: under it Chromium sends the form's POST with Origin "null", which origin.ts refuses.
  "referrer-policy": "same-origin",
  "x-frame-options": "DENY",
  "cache-control": "no-store",
};

const ASSETS: Record<string, { file: string; type: string }> = {
  "/page.js": { file: "page.js", type: "text/javascript; charset=utf-8" },
  "/page.css": { file: "page.css", type: "text/css; charset=utf-8" },
};
const assetCache = new Map<string, Buffer>();

function asset(name: string): Buffer {
  let body = assetCache.get(name);
  if (!body) assetCache.set(name, (body = readFileSync(path.join(packageRoot(), "assets", "status-page", name))));
  return body;
}

export function statusPageRoutes(data: () => PageData): ExtraRoutes {
  const sessions = new Map<string, number>();
  let streams = 0;

  const signedIn = (req: IncomingMessage): boolean => {
    const id = cookieOf(req.headers.cookie);
    const until = id === null ? undefined : sessions.get(id);
    if (until === undefined) return false;
    if (until < Date.now()) return (sessions.delete(id as string), false);
    return true;
  };

  const html = (res: ServerResponse, status: number, body: string, extra: Record<string, string> = {}) =>
    res.writeHead(status, { ...PAGE_HEADERS, "content-type": "text/html; charset=utf-8", ...extra }).end(body);

  return (req, res, pathname, access) => {
    const a = ASSETS[pathname];
    if (a && req.method === "GET") {
      res.writeHead(200, { ...PAGE_HEADERS, "content-type": a.type, "cache-control": "no-cache" }).end(asset(a.file));
      return true;
    }
    if (pathname === "/" && req.method === "GET") {
      html(res, 200, signedIn(req) ? statusPage(data()) : signInPage(null));
      return true;
    }
    if (pathname === "/signin" && req.method === "POST") {
      void readForm(req).then((form) => {
        // The rest of the form is not kept: Node discards it once the answer is sent.
        if (form === TOO_LARGE)
          return html(res, 413, signInPage(`That form is over ${MAX_SIGNIN_BODY} bytes: paste only the token.`));
        const token = form?.get("token") ?? "";
        if (!token || !access.operator(`Bearer ${token}`))
          return html(res, 403, signInPage("That is not this server's token."));
        const id = randomBytes(32).toString("base64url");
        if (sessions.size >= MAX_PAGE_SESSIONS) sessions.delete(sessions.keys().next().value as string);
        sessions.set(id, Date.now() + SESSION_MS);
        res
          .writeHead(303, {
            ...PAGE_HEADERS,
            location: "/",
            "set-cookie": `${COOKIE}=${id}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${SESSION_MS / 1000}`,
          })
          .end();
      });
      return true;
    }
    if (pathname === "/signout" && req.method === "POST") {
      const id = cookieOf(req.headers.cookie);
      if (id !== null) sessions.delete(id);
      res
        .writeHead(303, {
          ...PAGE_HEADERS,
          location: "/",
          "set-cookie": `${COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0`,
        })
        .end();
      return true;
    }
    if (pathname === "/events" && req.method === "GET") {
      if (!signedIn(req)) {
        reject(res, 403, "PB_ERR_GATEWAY_UNAUTHORIZED", "Refused: sign in on the status page first.");
        return true;
      }
      if (streams >= MAX_STREAMS) {
        reject(res, 503, "PB_ERR_GATEWAY_BUSY", `Refused: ${MAX_STREAMS} status streams are open already.`);
        return true;
      }
      streams++;
      stream(
        req,
        res,
        data,
        () => streams--,
        () => signedIn(req),
      );
      return true;
    }
    return false;
  };
}

/** The live view: an event whenever the data changed (checked every second), a comment now and then. */
function stream(
  req: IncomingMessage,
  res: ServerResponse,
  data: () => PageData,
  done: () => void,
  stillSignedIn: () => boolean,
): void {
  res.writeHead(200, { ...PAGE_HEADERS, "content-type": "text/event-stream", connection: "keep-alive" });
  let last = "";
  let quiet = 0;
  const tick = () => {
    if (!stillSignedIn()) return res.end();
    const { status } = data();
    const sessions = status.httpSessions;
    const next = JSON.stringify({
      summary: summary(status),
      sessions: sessions ? `${sessions.mode}: ${sessions.open} open, ${sessions.evicted} evicted` : "no HTTP transport",
      instances: status.instances,
    });
    if (next !== last) {
      last = next;
      quiet = 0;
      res.write(`data: ${next}\n\n`);
    } else if (++quiet >= 15) {
      quiet = 0;
      res.write(": still here\n\n");
    }
  };
  tick();
  const timer = setInterval(tick, STREAM_EVERY_MS);
  timer.unref();
  res.once("close", () => {
    clearInterval(timer);
    done();
  });
  req.once("error", () => res.destroy());
}

function cookieOf(header: string | undefined): string | null {
  if (!header) return null;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === COOKIE) return part.slice(eq + 1).trim() || null;
  }
  return null;
}

/** The sign-in form's fields, or null when the body is too large or not a form. */
const TOO_LARGE = Symbol("too large");

function readForm(req: IncomingMessage): Promise<URLSearchParams | typeof TOO_LARGE | null> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (c: Buffer) => {
      size += c.length;
      if (size > MAX_SIGNIN_BODY) {
        req.off("data", onData);
        return resolve(TOO_LARGE);
      }
      chunks.push(c);
    };
    req.on("data", onData);
    req.on("end", () => resolve(new URLSearchParams(Buffer.concat(chunks).toString("utf8"))));
    req.on("error", () => resolve(null));
  });
}
