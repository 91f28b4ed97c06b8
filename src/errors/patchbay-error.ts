/**
 * PatchbayError, the one error class every layer throws: a catalogue code, a message naming what
 * happened, the hint from the catalogue (or a more precise one), and plain data for --json.
 */
import { CATALOGUE, type ErrorCode } from "./catalogue.js";
import type { ExitCode } from "./exit.js";

/** An error's data crosses the worker boundary and reaches --json output: keep it plain JSON. */
export type ErrorData = Record<string, unknown>;

export class PatchbayError extends Error {
  readonly code: ErrorCode;
  readonly hint: string;
  readonly data: ErrorData;

  constructor(code: ErrorCode, message: string, data: ErrorData = {}, hint?: string) {
    super(message);
    this.name = "PatchbayError";
    this.code = code;
    this.hint = hint ?? CATALOGUE[code].hint;
    this.data = data;
  }

  get exitCode(): ExitCode {
    return typeof this.data.exit === "number" ? (this.data.exit as ExitCode) : CATALOGUE[this.code].exit;
  }
}

export function pbError(code: ErrorCode, message: string, data?: ErrorData, hint?: string): PatchbayError {
  return new PatchbayError(code, message, data, hint);
}

export function isPatchbayError(err: unknown): err is PatchbayError {
  return err instanceof PatchbayError;
}

export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === "string" && Object.hasOwn(CATALOGUE, code);
}

export function isRetryable(code: ErrorCode): boolean {
  return isErrorCode(code) && CATALOGUE[code].retryable;
}
