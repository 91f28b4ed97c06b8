/**
 * __NAME__: a skill-store plugin for Patchbay.
 *
 * As scaffolded it works end to end: every skill lives in one JSON file,
 * { "<name>": { "body": "...", "updated_at": <unix ms> } }, rewritten whole through a temp
 * file and a rename, so a reader never sees half a file. Each place you change to reach your
 * substrate (a database, a git repo, a memory service) is marked "SUBSTRATE:".
 *
 * The host validates every skill name before it reaches you (no separators, no "..", no
 * control characters), and refuses a list() holding a name a caller could not use.
 */
import { randomBytes } from "node:crypto";
import { access, constants, mkdir, readFile, rename, unlink, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { definePlugin, z } from "patchbay/plugin";
import type { SkillRecord, SkillStore } from "patchbay/plugin";

// SUBSTRATE: your store's settings. `path: true` resolves a relative path against the folder of
// connectors.json (not the working directory), so the instance finds the same file however it is started.
const config = z.strictObject({
  file: z
    .string()
    .min(1)
    .default(".patchbay/__NAME__.json")
    .meta({ path: true, description: "The JSON file holding every skill (created with its folder on first write)." }),
});

interface Stored {
  body: string;
  updated_at: number;
}

export default definePlugin({
  kind: "skill-store",
  config,
  create(cfg, ctx): SkillStore {
    const file = cfg.file;
    // One write at a time in this instance: two overlapping read-modify-writes would lose one.
    let queue: Promise<unknown> = Promise.resolve();
    const serialized = <T>(work: () => Promise<T>): Promise<T> => {
      const next = queue.then(work, work);
      queue = next.catch(() => {});
      return next;
    };

    // SUBSTRATE: read your store. A Map, not a plain object, so no skill name can touch a prototype.
    async function load(): Promise<Map<string, Stored>> {
      let text: string;
      try {
        text = await readFile(file, "utf8");
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "ENOENT") return new Map();
        throw err;
      }
      return new Map(Object.entries(JSON.parse(text) as Record<string, Stored>));
    }

    // SUBSTRATE: write your store.
    async function save(skills: Map<string, Stored>): Promise<void> {
      await mkdir(dirname(file), { recursive: true });
      const temp = join(dirname(file), `.${randomBytes(6).toString("hex")}.tmp`);
      try {
        await writeFile(temp, JSON.stringify(Object.fromEntries(skills), null, 2) + "\n", { flag: "wx" });
        await rename(temp, file);
      } catch (err) {
        await unlink(temp).catch(() => {});
        throw err;
      }
    }

    return {
      async health_check() {
        // SUBSTRATE: check your store is reachable and writable, quickly.
        try {
          await mkdir(dirname(file), { recursive: true });
          await access(dirname(file), constants.W_OK);
          return true;
        } catch (err) {
          ctx.log.warn("skill file's folder is not writable", { file, error: (err as Error).message });
          return false;
        }
      },

      async get(name: string): Promise<SkillRecord | null> {
        const skill = (await load()).get(name);
        return skill ? { name, body: skill.body, updated_at: skill.updated_at } : null;
      },

      async write(name: string, body: string): Promise<void> {
        await serialized(async () => {
          const skills = await load();
          skills.set(name, { body, updated_at: Date.now() });
          await save(skills);
        });
      },

      async list(): Promise<string[]> {
        return [...(await load()).keys()].sort();
      },

      async delete(name: string): Promise<boolean> {
        return serialized(async () => {
          const skills = await load();
          if (!skills.delete(name)) return false;
          await save(skills);
          return true;
        });
      },
    };
  },
});
