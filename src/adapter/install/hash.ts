/**
 * Content hashes for ownership: a file is its bytes' sha256; a tree is the sha256 over its sorted
 * entries (directories, files by content, symlinks by target), so an edit anywhere inside it —
 * a changed byte, a new file, a new empty folder — changes the tree's hash.
 */
import { createHash } from "node:crypto";
import { lstatSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import path from "node:path";

export const sha256 = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");

/** sha256 of a file's bytes, or null when it does not exist (or is not a regular file). */
export function fileHash(file: string): string | null {
  try {
    if (!lstatSync(file).isFile()) return null;
    return sha256(readFileSync(file));
  } catch {
    return null;
  }
}

function treeDigest(entries: string[]): string {
  return sha256(entries.sort().join("\n"));
}

/** The tree hash of a folder on disk, or null when it is not a folder. */
export function treeHash(dir: string): string | null {
  try {
    if (!lstatSync(dir).isDirectory()) return null;
  } catch {
    return null;
  }
  const entries: string[] = [];
  const walk = (rel: string) => {
    for (const name of readdirSync(path.join(dir, rel))) {
      const childRel = rel ? `${rel}/${name}` : name;
      const full = path.join(dir, childRel);
      const st = lstatSync(full);
      if (st.isDirectory()) {
        entries.push(`d\0${childRel}`);
        walk(childRel);
      } else if (st.isSymbolicLink()) {
        entries.push(`l\0${childRel}\0${readlinkSync(full)}`);
      } else {
        entries.push(`f\0${childRel}\0${sha256(readFileSync(full))}`);
      }
    }
  };
  walk("");
  return treeDigest(entries);
}

/** The tree hash a planned tree will have once written. */
export function plannedTreeHash(files: readonly { path: string; content: string }[]): string {
  const entries = new Set<string>();
  for (const f of files) {
    const parts = f.path.split("/");
    for (let i = 1; i < parts.length; i++) entries.add(`d\0${parts.slice(0, i).join("/")}`);
    entries.add(`f\0${f.path}\0${sha256(Buffer.from(f.content, "utf8"))}`);
  }
  return treeDigest([...entries]);
}
