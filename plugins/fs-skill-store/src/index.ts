/**
 * fs-skill-store: each skill is `<dir>/<name>.md`. Writes go to a hidden temp file in the same
 * folder, are fsynced, then renamed over the target, so a reader sees the old body or the new
 * one, never half of either. Every name is checked before it becomes a path, the path must stay
 * a direct child of `dir`, and a skill file that is a symlink leading out of `dir` is refused.
 */
import { randomBytes } from "node:crypto";
import { mkdir, open, readdir, readFile, realpath, rename, stat, unlink } from "node:fs/promises";
import { dirname, join, resolve, sep } from "node:path";
import { definePlugin, z, portableNameProblem } from "patchbay/plugin";
import type { SkillRecord, SkillStore } from "patchbay/plugin";

const EXT = ".md";

const config = z.strictObject({
  dir: z
    .string()
    .min(1)
    .meta({ path: true, description: "Folder holding the skills, one <name>.md file each (created on first write)." }),
});

function errno(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | undefined)?.code;
}

export default definePlugin({
  kind: "skill-store",
  config,
  create(cfg, ctx): SkillStore {
    const root = resolve(cfg.dir);

    /** The file of skill `name`; throws for a name that must not become a path. */
    function fileOf(name: string): string {
      const problem = portableNameProblem(name);
      if (problem) throw new Error(`invalid skill name ${JSON.stringify(name)}: ${problem}`);
      const file = resolve(root, name + EXT);
      if (dirname(file) !== root)
        throw new Error(`invalid skill name ${JSON.stringify(name)}: it leaves the skill folder`);
      return file;
    }

    /** Follows symlinks, and refuses one that leads outside the folder. Null when the skill does not exist. */
    async function realFileOf(name: string): Promise<string | null> {
      const file = fileOf(name);
      let real: string;
      let realRoot: string;
      try {
        real = await realpath(file);
        realRoot = await realpath(root);
      } catch (err) {
        if (errno(err) === "ENOENT") return null;
        throw err;
      }
      if (!real.startsWith(realRoot + sep))
        throw new Error(
          `skill ${JSON.stringify(name)} is a link to a file outside the skill folder; refusing to read it`,
        );
      return real;
    }

    async function syncDir(): Promise<void> {
      // Makes the rename itself durable; not every platform lets a folder be opened for fsync.
      try {
        const handle = await open(root, "r");
        try {
          await handle.sync();
        } finally {
          await handle.close();
        }
      } catch {
        /* best effort */
      }
    }

    return {
      async health_check() {
        const probe = join(root, `.patchbay-health-${randomBytes(6).toString("hex")}`);
        try {
          await mkdir(root, { recursive: true });
          const handle = await open(probe, "wx");
          await handle.close();
          await unlink(probe);
          return true;
        } catch (err) {
          ctx.log.warn("skill folder is not writable", { dir: root, error: (err as Error).message });
          return false;
        }
      },

      async get(name: string): Promise<SkillRecord | null> {
        const real = await realFileOf(name);
        if (real === null) return null;
        try {
          const [body, info] = await Promise.all([readFile(real, "utf8"), stat(real)]);
          return { name, body, updated_at: Math.round(info.mtimeMs) };
        } catch (err) {
          if (errno(err) === "ENOENT") return null; // deleted between realpath and read
          throw err;
        }
      },

      async write(name: string, body: string): Promise<void> {
        const file = fileOf(name);
        if (typeof body !== "string") throw new Error("write(name, body): body must be a string");
        await mkdir(root, { recursive: true });
        // Hidden (leading "."), so list() and folder watchers that look for *.md never see it.
        const temp = join(root, `.${name}${EXT}.${randomBytes(6).toString("hex")}.tmp`);
        const handle = await open(temp, "wx");
        try {
          try {
            await handle.writeFile(body, "utf8");
            await handle.sync();
          } finally {
            await handle.close();
          }
          await rename(temp, file);
        } catch (err) {
          await unlink(temp).catch(() => {});
          throw err;
        }
        await syncDir();
      },

      async list(): Promise<string[]> {
        let entries;
        try {
          entries = await readdir(root, { withFileTypes: true });
        } catch (err) {
          if (errno(err) === "ENOENT") return [];
          throw err;
        }
        const names: string[] = [];
        for (const entry of entries) {
          if (!entry.name.endsWith(EXT) || !(entry.isFile() || entry.isSymbolicLink())) continue;
          const name = entry.name.slice(0, -EXT.length);
          if (portableNameProblem(name) === null) names.push(name);
        }
        return names.sort();
      },

      async delete(name: string): Promise<boolean> {
        const file = fileOf(name);
        try {
          await unlink(file);
        } catch (err) {
          if (errno(err) === "ENOENT") return false;
          throw err;
        }
        await syncDir();
        return true;
      },
    };
  },
});
