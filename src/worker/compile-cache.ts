/**
 * Node 22.1+ can keep V8's compiled code of the modules a thread loads on disk (in the OS temp
 * folder, or NODE_COMPILE_CACHE; NODE_DISABLE_COMPILE_CACHE=1 turns it off). Each worker thread
 * must ask for it itself: the host's (bin/patchbay.mjs) does not reach its threads. What it saves
 * is a plugin's packages compiled again at every start (the MCP SDK, zod and ajv are most of an
 * mcp-remote worker's start). Threads only: a process- or sandbox-isolated child may not write
 * outside its grants. Older Node lacks the function, and nothing changes.
 */
import module from "node:module";

export function enableCompileCache(): void {
  (module as { enableCompileCache?: () => unknown }).enableCompileCache?.();
}
