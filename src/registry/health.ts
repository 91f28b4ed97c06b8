/**
 * The boot health pass: every started instance's health_check() under its health_timeout_ms.
 * false, a throw and a timeout all count as unhealthy, each with its own reason.
 */
import { pbError, toWire } from "../errors.js";
import type { InstanceEntry } from "./registry.js";

/** One instance's check (sets its state, healthMs and error); live health runs it too. */
export { checkOne as checkHealth };

/** How the pass calls an instance: through the same guard and deadline as every other call. */
export type Invoke = (
  entry: InstanceEntry,
  method: string,
  args: unknown[],
  opts: { timeoutMs: number },
) => Promise<unknown>;

/** `onChecked` hears each instance as its check ends (boot's progress lines), in the order they end. */
export async function runHealthPass(
  entries: InstanceEntry[],
  invoke: Invoke,
  onChecked?: (entry: InstanceEntry) => void,
): Promise<void> {
  await Promise.all(
    entries.map(async (e) => {
      await checkOne(e, invoke);
      onChecked?.(e);
    }),
  );
}

async function checkOne(entry: InstanceEntry, invoke: Invoke): Promise<void> {
  const timeoutMs = entry.planned!.healthTimeoutMs;
  const started = performance.now();
  try {
    const healthy = await invoke(entry, "health_check", [], { timeoutMs });
    entry.healthMs = Math.round(performance.now() - started);
    if (healthy === true) {
      entry.state = "ready";
      entry.error = null;
      return;
    }
    entry.error = toWire(
      pbError(
        "PB_ERR_HEALTH_FAILED",
        `${entry.id} (plugin "${entry.plugin}"): health_check() returned false${entry.lastWarning ? `; the plugin logged: ${entry.lastWarning}` : "."}`,
        { instance: entry.id, plugin: entry.plugin },
        healthHint(entry),
      ),
    );
  } catch (err) {
    entry.healthMs = Math.round(performance.now() - started);
    const wire = toWire(err);
    entry.error =
      wire.code === "PB_ERR_CALL_TIMEOUT"
        ? toWire(
            pbError(
              "PB_ERR_HEALTH_TIMEOUT",
              `${entry.id} (plugin "${entry.plugin}"): health_check() did not answer within ${timeoutMs} ms.`,
              { instance: entry.id, plugin: entry.plugin, timeout_ms: timeoutMs },
            ),
          )
        : toWire(
            pbError(
              "PB_ERR_HEALTH_FAILED",
              `${entry.id} (plugin "${entry.plugin}"): health_check() failed: ${wire.message}`,
              { instance: entry.id, plugin: entry.plugin, cause: wire.code },
              healthHint(entry),
            ),
          );
  }
  entry.state = "failed";
}

/** The catalogue's hint suggests `"required": false`; an instance that already has it needs another one. */
function healthHint(entry: InstanceEntry): string | undefined {
  if (entry.required) return undefined;
  return `Make ${entry.id}'s substrate reachable (its config names it). It is optional ("required": false), so the host runs degraded without it meanwhile.`;
}
