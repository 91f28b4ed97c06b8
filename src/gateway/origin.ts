/**
 * DNS-rebinding protection for the HTTP gateway: a browser page on evil.example can make the
 * victim's browser send requests to 127.0.0.1 under its own Host name. So the Host header must
 * name this server (a loopback name, the bound address, this machine's name, or a name listed in
 * PATCHBAY_ALLOWED_HOSTS), and an Origin header, when present, must name one of the same hosts.
 */
import os from "node:os";

const LOOPBACK = ["localhost", "127.0.0.1", "[::1]", "::1"];

export function allowedHostnames(bindHost: string, env: Record<string, string | undefined> = process.env): Set<string> {
  const names = new Set(LOOPBACK);
  const loopbackBind = LOOPBACK.includes(bindHost) || bindHost.startsWith("127.");
  if (!loopbackBind) {
    if (bindHost !== "0.0.0.0" && bindHost !== "::") names.add(bindHost.includes(":") ? `[${bindHost}]` : bindHost);
    names.add(os.hostname().toLowerCase());
  }
  for (const n of (env.PATCHBAY_ALLOWED_HOSTS ?? "")
    .split(",")
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean))
    names.add(n);
  return names;
}

/** The host part of a Host header ("localhost:7777" → "localhost", "[::1]:80" → "[::1]"). */
function hostnameOf(hostHeader: string): string {
  const h = hostHeader.trim().toLowerCase();
  if (h.startsWith("[")) return h.slice(0, h.indexOf("]") + 1);
  return h.split(":")[0];
}

/** null when the request may proceed, else why it may not. */
export function checkHostAndOrigin(
  host: string | undefined,
  origin: string | undefined,
  allowed: Set<string>,
): string | null {
  if (!host) return "the request has no Host header";
  if (!allowed.has(hostnameOf(host))) return `Host "${host.slice(0, 100)}" is not this server`;
  if (origin !== undefined && origin !== "null") {
    let originHost: string;
    try {
      originHost = new URL(origin).hostname.toLowerCase();
    } catch {
      return "the Origin header is not a URL";
    }
    const bracketed = originHost.includes(":") && !originHost.startsWith("[") ? `[${originHost}]` : originHost;
    if (!allowed.has(bracketed)) return `Origin "${origin.slice(0, 100)}" is not this server`;
  } else if (origin === "null") {
    return "an opaque (null) Origin is refused";
  }
  return null;
}

/**
 * checkHostAndOrigin for one server's names, remembering the last Host and Origin that passed: a
 * client sends the same pair on every request, and the check's parsing (and a URL parse when an
 * Origin is sent) would be repeated for nothing. Any other pair is checked in full.
 */
export function hostAndOriginCheck(allowed: Set<string>): (host?: string, origin?: string) => string | null {
  let passedHost: string | undefined;
  let passedOrigin: string | undefined;
  return (host, origin) => {
    if (host !== undefined && host === passedHost && origin === passedOrigin) return null;
    const denied = checkHostAndOrigin(host, origin, allowed);
    if (denied === null) {
      passedHost = host;
      passedOrigin = origin;
    }
    return denied;
  };
}
