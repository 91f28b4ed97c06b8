/**
 * Errors, one import for every layer: the PB_ERR_* catalogue (errors/catalogue.ts, where a new code
 * goes), the exit codes (errors/exit.ts), PatchbayError (errors/patchbay-error.ts) and its plain-data
 * wire form (errors/wire.ts). A leaf that imports nothing else: the worker program imports it too.
 */
export { CATALOGUE, type ErrorCode } from "./errors/catalogue.js";
export { EXIT, type ExitCode } from "./errors/exit.js";
export {
  isErrorCode,
  isPatchbayError,
  isRetryable,
  PatchbayError,
  pbError,
  type ErrorData,
} from "./errors/patchbay-error.js";
export { fromWire, toWire, type WireError } from "./errors/wire.js";
