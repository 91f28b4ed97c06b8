/**
 * Request signing. The signature covers the timestamp and the exact body bytes, so a receiver
 * that checks it (and the timestamp's age) rejects both forged and replayed requests:
 *
 *   X-Patchbay-Timestamp: <unix ms>
 *   X-Patchbay-Signature: sha256=<hex HMAC-SHA256(secret, "<timestamp>.<body>")>
 *
 * verifySignature is what a receiver runs; it compares in constant time.
 */
import { createHmac, timingSafeEqual } from "node:crypto";

export function sign(secret: string, timestamp: number, body: string): string {
  return "sha256=" + createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex");
}

export function verifySignature(
  secret: string,
  timestamp: string | undefined,
  body: string,
  signature: string | undefined,
): boolean {
  if (!timestamp || !signature) return false;
  const expected = Buffer.from(sign(secret, Number(timestamp), body));
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
