/**
 * The server's private folder, `.patchbay/` next to connectors.json: the bearer token and the
 * control socket live there. The folder is 0700 and the files in it 0600: only the user who runs
 * `patchbay serve` may read the token or talk to the server.
 */
import crypto, { randomBytes, createHash, timingSafeEqual } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";

export function stateDir(configFile: string | null, cwd = process.cwd()): string {
  return path.join(configFile ? path.dirname(configFile) : cwd, ".patchbay");
}

export function ensureStateDir(dir: string): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  return dir;
}

export interface Token {
  value: string;
  /** Where it came from: "PATCHBAY_TOKEN", or the file it was read from or written to. */
  source: string;
  created: boolean;
}

/** PATCHBAY_TOKEN, else .patchbay/token, else a new random token written there with mode 0600. */
export function loadToken(dir: string, env: Record<string, string | undefined> = process.env): Token {
  const fromEnv = env.PATCHBAY_TOKEN?.trim();
  if (fromEnv) return { value: fromEnv, source: "PATCHBAY_TOKEN", created: false };
  const file = path.join(ensureStateDir(dir), "token");
  try {
    const value = readFileSync(file, "utf8").trim();
    if (value) {
      // A token others can read is no secret: tighten it rather than serve with it as is.
      if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
      return { value, source: file, created: false };
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
  const value = randomBytes(32).toString("base64url");
  writeFileSync(file, value + "\n", { mode: 0o600 });
  chmodSync(file, 0o600);
  return { value, source: file, created: true };
}

/** Constant-time comparison of a presented `Authorization` header with the token. */
export function bearerMatches(header: string | undefined, token: string): boolean {
  return bearerCheck(token)(header);
}

/**
 * `bearerMatches` for one token, its digest made once: the HTTP gateway checks every request, and
 * hashing the fixed token each time was half the check's cost. Both sides are SHA-256 digests, so
 * timingSafeEqual compares equal lengths whatever was sent, and the time says nothing of the token.
 */
export function bearerCheck(token: string): (header: string | undefined) => boolean {
  const expected = sha256(token);
  return (header) => !!header && /^Bearer /i.test(header) && timingSafeEqual(sha256(header.slice(7).trim()), expected);
}

// One-shot crypto.hash (Node 20.12+, 21.7+) skips the Hash object createHash builds: ~1 µs a
// request. Used only where it returns a Buffer (it is still marked experimental on Node 20).
const sha256: (s: string) => Buffer = Buffer.isBuffer(crypto.hash?.("sha256", "", "buffer"))
  ? (s) => crypto.hash("sha256", s, "buffer")
  : (s) => createHash("sha256").update(s).digest();
