import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import plugin from "../../plugins/fs-skill-store/src/index.js";
import { makeCtx } from "./_ctx.js";

type Store = Awaited<ReturnType<typeof plugin.create>>;

let base: string;
let dir: string;

function makeStore(folder = dir): Store {
  return plugin.create(plugin.config.parse({ dir: folder }), makeCtx().ctx) as Store;
}

beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), "pb-skills-"));
  dir = join(base, "skills");
});

afterEach(() => {
  rmSync(base, { recursive: true, force: true });
});

const HOSTILE_NAMES = [
  "../escape",
  "..",
  ".",
  "a/../../b",
  "sub/dir",
  "back\\slash",
  "/etc/passwd",
  "C:\\x",
  "nul\u0000byte",
  "line\nbreak",
  "tab\tname",
  ".hidden",
  "-dash-first",
  "trailing.",
  "a..b",
  "con",
  "NUL.txt",
  "x".repeat(201),
  "",
  "space name",
  "ünïcode",
];

describe("fs-skill-store", () => {
  it("round-trips write, get, list and delete", async () => {
    const store = makeStore();
    expect(await store.list()).toEqual([]);
    expect(await store.get("missing")).toBeNull();

    await store.write("zeta", "# Zeta\nbody z\n");
    await store.write("alpha", "# Alpha\n");
    await store.write("mid.v2_final-1", "");
    expect(readFileSync(join(dir, "zeta.md"), "utf8")).toBe("# Zeta\nbody z\n");

    const got = await store.get("zeta");
    expect(got).toMatchObject({ name: "zeta", body: "# Zeta\nbody z\n" });
    // updated_at is the file's own modification time (ms), not a clock read of its own.
    expect(got!.updated_at).toBe(Math.round(statSync(join(dir, "zeta.md")).mtimeMs));

    expect(await store.list()).toEqual(["alpha", "mid.v2_final-1", "zeta"]);

    await store.write("zeta", "replaced");
    expect((await store.get("zeta"))!.body).toBe("replaced");

    expect(await store.delete("zeta")).toBe(true);
    expect(await store.delete("zeta")).toBe(false);
    expect(await store.get("zeta")).toBeNull();
    expect(await store.list()).toEqual(["alpha", "mid.v2_final-1"]);
  });

  it("refuses traversal, separators and control characters in every method", async () => {
    const store = makeStore();
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(base, "escape.md"), "outside");
    for (const name of HOSTILE_NAMES) {
      await expect(store.get(name), name).rejects.toThrow(/invalid skill name/);
      await expect(store.write(name, "x"), name).rejects.toThrow(/invalid skill name/);
      await expect(store.delete(name), name).rejects.toThrow(/invalid skill name/);
    }
    expect(readFileSync(join(base, "escape.md"), "utf8")).toBe("outside");
    expect(readdirSync(dir)).toEqual([]);
  });

  it("writes atomically: temp file in the same folder, renamed, nothing left behind", async () => {
    const store = makeStore();
    await store.write("doc", "v1");
    const bodies = Array.from({ length: 20 }, (_, i) => `version ${i} `.repeat(5_000));
    // concurrent writers and readers: every read sees one complete body, never a mix or a partial file
    const reads: Promise<unknown>[] = [];
    const writes = bodies.map((b) => store.write("doc", b));
    for (let i = 0; i < 20; i++) reads.push(store.get("doc").then((r) => r!.body));
    await Promise.all(writes);
    for (const body of await Promise.all(reads)) expect(["v1", ...bodies]).toContain(body);
    expect(bodies).toContain((await store.get("doc"))!.body);
    expect(readdirSync(dir)).toEqual(["doc.md"]);
  });

  it("lists only valid <name>.md files (no temp files, folders or stray files)", async () => {
    const store = makeStore();
    await store.write("real", "x");
    writeFileSync(join(dir, ".real.md.abc123.tmp"), "partial");
    writeFileSync(join(dir, "notes.txt"), "x");
    writeFileSync(join(dir, ".hidden.md"), "x");
    mkdirSync(join(dir, "folder.md"));
    expect(await store.list()).toEqual(["real"]);
  });

  it("refuses to read a skill that is a symlink leading outside the folder", async () => {
    const store = makeStore();
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(base, "secret.txt"), "top secret");
    symlinkSync(join(base, "secret.txt"), join(dir, "sneaky.md"));
    await expect(store.get("sneaky")).rejects.toThrow(/outside the skill folder/);
    // a link inside the folder is fine
    await store.write("target", "inside");
    symlinkSync(join(dir, "target.md"), join(dir, "alias.md"));
    expect((await store.get("alias"))!.body).toBe("inside");
  });

  it("health: creates the folder and checks it is writable", async () => {
    const store = makeStore(join(base, "a", "b"));
    expect(await store.health_check()).toBe(true);
    expect(existsSync(join(base, "a", "b"))).toBe(true);
    expect(readdirSync(join(base, "a", "b"))).toEqual([]);

    writeFileSync(join(base, "plain-file"), "x");
    expect(await makeStore(join(base, "plain-file", "skills")).health_check()).toBe(false);

    if (process.getuid?.() !== 0) {
      const ro = join(base, "readonly");
      mkdirSync(ro);
      chmodSync(ro, 0o500);
      expect(await makeStore(ro).health_check()).toBe(false);
      chmodSync(ro, 0o700);
    }
  });
});
