/** Real folders on disk for config tests: a temp project with a `.git` so searches stop there. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach } from "vitest";

const made: string[] = [];

afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

export interface TempProject {
  root: string;
  /** Write `rel` (JSON.stringify for non-strings), creating folders; returns the absolute path. */
  write(rel: string, content: unknown): string;
  mkdir(rel: string): string;
}

/** A temp folder; with `git` (default) it holds a `.git` folder, the search's stop mark. */
export function tempProject({ git = true } = {}): TempProject {
  const root = mkdtempSync(path.join(os.tmpdir(), "pb-config-"));
  made.push(root);
  if (git) mkdirSync(path.join(root, ".git"));
  return {
    root,
    write(rel, content) {
      const file = path.join(root, rel);
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content, null, 2));
      return file;
    },
    mkdir(rel) {
      const dir = path.join(root, rel);
      mkdirSync(dir, { recursive: true });
      return dir;
    },
  };
}

/** Run `fn` and return what it threw (fails the test when it does not throw). */
// biome-ignore lint/suspicious/noExplicitAny: tests read whatever fields the caught error has
export async function caught(fn: () => unknown): Promise<any> {
  try {
    await fn();
  } catch (err) {
    return err;
  }
  throw new Error("expected an error, none was thrown");
}
