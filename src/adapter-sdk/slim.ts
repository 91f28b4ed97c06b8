/**
 * The zod-free part of `patchbay/adapter`: what the fast hook path resolves `patchbay/adapter` to
 * when it loads an adapter's `fastHook` module in-process. Importing anything else from a
 * fastHook module leaves it undefined there, and the hook takes the full path instead.
 */
export { normalizedEvent } from "./event.js";
export { EVENT_KINDS, EVENT_KEYS } from "./event-kinds.js";
export { canonicalPath, detectFromProbe, guardProtected, isInside, shellQuote } from "./helpers.js";
export { additionalContextOutcome, permissionDenyOutcome } from "./outcomes.js";
export { hookEvents, jsonHookProtocol, writeToolTargets } from "./hook-protocol.js";
