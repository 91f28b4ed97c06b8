/**
 * Which plugins may run with "isolation": "host" (on the host's own thread): only one that ships
 * with Patchbay (shipped.ts). So a configured plugin that takes a bundled plugin's name is refused,
 * and so is one an operator dropped into plugins/ next to the bundled ones. The load plan refuses
 * such an instance before anything starts (plan.ts); the host runtime checks again when it starts
 * one (spawn/host-runtime.ts). See docs/isolation.md.
 */
import { toPointer } from "../config/issues.js";
import { pbError, type PatchbayError } from "../errors.js";
import { isShippedPlugin } from "./shipped.js";

/** PB_ERR_ISOLATION_HOST_DENIED for an instance whose plugin is not a bundled one, else null. */
export function hostIsolationRefusal(task: {
  instance: string;
  pluginName: string;
  pluginDir: string;
}): PatchbayError | null {
  if (isShippedPlugin(task.pluginDir)) return null;
  const slash = task.instance.indexOf("/");
  const pointer = toPointer([task.instance.slice(0, slash), task.instance.slice(slash + 1), "isolation"]);
  return pbError(
    "PB_ERR_ISOLATION_HOST_DENIED",
    `${task.instance}: "isolation": "host" runs a plugin on the host's own thread, which only the plugins bundled with Patchbay may do, and plugin "${task.pluginName}" is not one of them (${task.pluginDir}). Set ${pointer} to "thread" (a worker thread of its own), or to "sandbox" for code you do not trust.`,
    { instance: task.instance, plugin: task.pluginName, pointer },
  );
}
