/**
 * An error as plain data: what crosses a MessagePort or a child's channel and what --json prints.
 * Whether a code is retryable is always read from the catalogue, never from the other side.
 */
import { CATALOGUE, type ErrorCode } from "./catalogue.js";
import { isErrorCode, isRetryable, PatchbayError, type ErrorData } from "./patchbay-error.js";

/** Plain-data form of an error: what crosses a MessagePort and what --json prints. */
export interface WireError {
  code: ErrorCode;
  message: string;
  hint: string;
  data: ErrorData;
  /** From the catalogue, by code: never taken from the other side of the boundary. */
  retryable?: boolean;
}

export function toWire(err: unknown): WireError {
  if (err instanceof PatchbayError)
    return { code: err.code, message: err.message, hint: err.hint, data: err.data, retryable: isRetryable(err.code) };
  const copy = fromAnotherCopy(err);
  if (copy) return copy;
  const message = err instanceof Error ? err.message : String(err);
  return { code: "PB_ERR_INTERNAL", message, hint: CATALOGUE.PB_ERR_INTERNAL.hint, data: {}, retryable: false };
}

export function fromWire(wire: WireError): PatchbayError {
  const code = isErrorCode(wire.code) ? wire.code : "PB_ERR_INTERNAL";
  return new PatchbayError(code, wire.message, wire.data ?? {}, wire.hint);
}

/**
 * A PatchbayError made by another copy of the class: a plugin's `patchbay/plugin` is its own bundle
 * (loaded with the plugin, not with the worker), so `instanceof` cannot see its errors. Recognised
 * by name and a catalogue code; hint and data are taken only when they have the wire's shape.
 */
function fromAnotherCopy(err: unknown): WireError | null {
  if (!(err instanceof Error) || err.name !== "PatchbayError") return null;
  const { code, hint, data } = err as Error & { code?: unknown; hint?: unknown; data?: unknown };
  if (!isErrorCode(code)) return null;
  const plain = data !== null && typeof data === "object" && !Array.isArray(data);
  return {
    code,
    message: err.message,
    hint: typeof hint === "string" ? hint : CATALOGUE[code].hint,
    data: plain ? (data as ErrorData) : {},
    retryable: isRetryable(code),
  };
}
