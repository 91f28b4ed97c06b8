/**
 * Symlinks in a plugin folder that point outside it are refused at discovery: a
 * shipped `data -> /` would turn a process-mode fs grant of the plugin folder into a grant of
 * the whole disk (Node's permission model checks the path it is given, then the kernel follows
 * the link). Links inside the folder are fine. The walk never follows links and is bounded.
 */
import { type Dirent, readdirSync, readlinkSync, realpathSync } from "node:fs";
import path from "node:path";

/** More entries than this and the walk stops: a plugin folder is not a disk. */
const MAX_ENTRIES = 50_000;

/** The first symlink under `dir` that leaves it, as [link, target], or null. */
export function symlinkOutOf(dir: string): [string, string] | null {
  const root = realpathSync(dir);
  const stack = [root];
  let seen = 0;
  while (stack.length > 0) {
    const folder = stack.pop()!;
    let entries: Dirent[];
    try {
      // The entries' types come with the listing (no lstat per file): discovery walks every
      // plugin folder on every boot, and the lstat calls were most of reading the bundled plugins.
      entries = readdirSync(folder, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      if (++seen > MAX_ENTRIES) return null;
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) stack.push(full);
      else if (entry.isSymbolicLink()) {
        let target: string;
        try {
          target = realpathSync(full);
        } catch {
          // Dangling: judge where it would point.
          target = path.resolve(folder, readlinkSync(full));
        }
        if (target !== root && !target.startsWith(root + path.sep)) return [full, target];
      }
    }
  }
  return null;
}
