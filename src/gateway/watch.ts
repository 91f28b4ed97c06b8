/**
 * `serve --watch`: watches connectors.json (through its folder, so an editor's write-to-temp-and-
 * rename is seen) and every plugin folder, and hands the debounced burst to the Reloader. Reloads
 * never overlap: changes during one run schedule exactly one more.
 */
import { existsSync, watch, type FSWatcher } from "node:fs";
import path from "node:path";
import type { Host } from "../host/api.js";
import { Reloader, type ReloadOutcome } from "../host/reload.js";

export const DEBOUNCE_MS = 250;

export interface Watcher {
  close(): void;
}

export function startWatching(
  host: Host,
  onOutcome: (o: ReloadOutcome) => void | Promise<void>,
  debounceMs = DEBOUNCE_MS,
): Watcher {
  const reloader = new Reloader(host);
  const { configFile, pluginDirs } = reloader.watchedPaths();
  const watchers: FSWatcher[] = [];
  let timer: NodeJS.Timeout | null = null;
  let running = false;
  let pending = false;
  let closed = false;

  const run = async () => {
    if (running) return void (pending = true);
    running = true;
    try {
      do {
        pending = false;
        await onOutcome(await reloader.reload());
      } while (pending && !closed);
    } finally {
      running = false;
    }
  };
  const poke = () => {
    if (closed) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(
      () => void run().catch((err: unknown) => host.logger.error({ error: String(err) }, "reload failed unexpectedly")),
      debounceMs,
    );
  };

  const base = path.basename(configFile);
  watchers.push(
    watch(path.dirname(configFile), (_event, name) => {
      if (name === null || name === base || name.startsWith(`${base}.`) || name.startsWith(`.${base}`)) poke();
    }),
  );
  for (const dir of pluginDirs) {
    // A folder that is not there has nothing to watch (doctor names it); making it needs a restart.
    if (!existsSync(dir)) continue;
    try {
      watchers.push(
        watch(dir, { recursive: true }, (_event, name) => {
          if (!name?.split(path.sep).includes("node_modules")) poke();
        }),
      );
    } catch {
      host.logger.warn({ folder: dir }, `cannot watch plugin folder ${dir}; changes in it need a restart`);
    }
  }
  for (const w of watchers) w.on("error", () => undefined);
  return {
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      for (const w of watchers) w.close();
    },
  };
}
