/**
 * `patchbay call` reusing a running `patchbay serve` for the same connectors.json (its control
 * socket): no boot per call. When no server listens, the caller boots as before; once a request
 * was sent, its failure is final (the call may have run).
 */
import { fromWire, type WireError } from "../errors.js";
import { resolveConfigPath } from "../config/source.js";
import { askServer } from "./control.js";
import { stateDir } from "./state-dir.js";

/** How long past the call's own deadline the client waits for the server's answer. */
const MARGIN_MS = 5_000;
/** Without --timeout-ms the server applies the instance's timeout_ms; wait at most this long. */
const DEFAULT_WAIT_MS = 10 * 60_000;

export interface ServerCall {
  config?: string;
  instance: string;
  method: string;
  args: unknown[];
  timeoutMs?: number;
}

export async function callViaServer(
  call: ServerCall,
): Promise<{ answered: false } | { answered: true; value: unknown }> {
  let file: string;
  try {
    file = resolveConfigPath({ config: call.config }).file;
  } catch {
    return { answered: false }; // The boot reports the missing file with its own error.
  }
  const { config: _config, ...request } = call;
  const answer = await askServer(
    stateDir(file),
    { op: "call", ...request },
    (call.timeoutMs ?? DEFAULT_WAIT_MS) + MARGIN_MS,
  );
  if (!answer) return { answered: false };
  if (!answer.ok) throw fromWire(answer.error as WireError);
  return { answered: true, value: answer.value };
}
