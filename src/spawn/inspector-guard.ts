/**
 * SIGUSR1 opens Node's inspector on 127.0.0.1:9229: a process-isolated plugin could signal its
 * parent and then connect to the host's debugger, and a thread can signal its own process.
 * Any JS listener for SIGUSR1 replaces Node's default action (verified on Node 20:
 * `process.kill(process.ppid, "SIGUSR1")` from a child no longer opens the port), so the host
 * installs one before it starts any worker. An operator who wants the debugger starts the host
 * with --inspect instead. Documented in docs/isolation.md.
 */
let installed = false;

export function guardInspectorSignal(): void {
  if (installed) return;
  installed = true;
  process.on("SIGUSR1", () => {
    // Deliberately nothing: the signal is refused, not acted on.
  });
}
