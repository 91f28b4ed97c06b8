/**
 * Ends a stdio server for sure, quickly: it gets STDIN_GRACE_MS to exit after its stdin closed
 * (the MCP spec's polite shutdown), then SIGTERM, then SIGKILL after TERM_GRACE_MS. The whole
 * sequence stays well inside the worker's close grace (2 s), so a server that ignores its stdin
 * closing is never left behind, re-parented to PID 1 (measured before: the SDK's own schedule,
 * 2 s then SIGTERM, lost the race against the worker exiting).
 */
import type { ChildProcess } from "node:child_process";
import type { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { PluginContext } from "patchbay/plugin";

const STDIN_GRACE_MS = 300;
const TERM_GRACE_MS = 500;

function exited(proc: ChildProcess): boolean {
  return proc.exitCode !== null || proc.signalCode !== null;
}

function waitExit(proc: ChildProcess, ms: number): Promise<boolean> {
  if (exited(proc)) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      proc.off("exit", onExit);
      resolve(exited(proc));
    }, ms);
    const onExit = () => {
      clearTimeout(timer);
      resolve(true);
    };
    proc.once("exit", onExit);
  });
}

/** Call before the transport's own close() (which forgets the child): reads the child synchronously. */
export async function stopChild(transport: StdioClientTransport, target: string, ctx: PluginContext): Promise<void> {
  // The SDK keeps the ChildProcess private; pinned SDK version (1.32.x), checked by tests/mcp/stdio-orphan.test.ts.
  const proc = (transport as unknown as { _process?: ChildProcess })._process;
  if (!proc || exited(proc)) return;
  try {
    proc.stdin?.end();
  } catch {
    // already closed
  }
  if (await waitExit(proc, STDIN_GRACE_MS)) return;
  proc.kill("SIGTERM");
  if (await waitExit(proc, TERM_GRACE_MS)) return;
  ctx.log.warn("stdio server ignored stdin closing and SIGTERM; killed", { target, pid: proc.pid });
  proc.kill("SIGKILL");
  await waitExit(proc, TERM_GRACE_MS);
}
