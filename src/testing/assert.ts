/**
 * The few assertions the kits need, without a test framework: `patchbay plugin test` runs the
 * same claims outside vitest. Every failure message says what the plugin did and what the
 * contract wants.
 */
import { toWire } from "../errors.js";

export class ClaimFailure extends Error {
  override name = "ClaimFailure";
}

export function ensure(condition: unknown, message: string): asserts condition {
  if (!condition) throw new ClaimFailure(message);
}

/** Awaits `promise` and requires it to fail with `code`; returns the error's plain form. */
export async function refused(
  promise: Promise<unknown>,
  code: string,
  what: string,
): Promise<{ code: string; message: string; data: Record<string, unknown> }> {
  let value: unknown;
  try {
    value = await promise;
  } catch (err) {
    const wire = toWire(err);
    if (wire.code !== code) throw new ClaimFailure(`${what}: expected ${code}, got ${wire.code}: ${wire.message}`);
    return wire;
  }
  throw new ClaimFailure(`${what}: expected ${code}, but the call succeeded with ${preview(value)}`);
}

/** Runs `fn` and turns a thrown host error into a failure message naming `what`. */
export async function attempt<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof ClaimFailure) throw err;
    const wire = toWire(err);
    throw new ClaimFailure(`${what} failed: ${wire.code}: ${wire.message}`);
  }
}

export function preview(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
