/**
 * Writes a composed plan and undoes it from the record. Rules:
 *  - install is idempotent: an artifact whose bytes already match is not touched;
 *  - a tree or file that exists but is not Patchbay's (no record, different bytes) is a conflict, never overwritten;
 *  - ownership is the content hash taken after the write;
 *  - uninstall deletes a tree or file only while its hash matches the record; an edit anywhere inside a
 *    tree keeps the whole tree, and anything inside a kept tree is kept too (containment, not path equality);
 *  - a merge file is never deleted unless Patchbay created it and nobody touched it since; otherwise its
 *    original bytes come back (exactly, when untouched) or Patchbay's entries are taken out of the user's edit.
 */
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  rmdirSync,
  statSync,
  unlinkSync,
} from "node:fs";
import path from "node:path";
import { pbError, toWire, type WireError } from "../../errors.js";
import type { Artifact } from "../../adapter-sdk/contract.js";
import { isInside } from "../../adapter-sdk/helpers.js";
import { writeFileAtomic } from "../fs-atomic.js";
import { fileHash, plannedTreeHash, sha256, treeHash } from "./hash.js";
import { jsonEqual, mergeJson, unmergeJson, type MergeEntry } from "./json-merge.js";
import type { AdapterRecord, RecordedArtifact } from "./record.js";

export interface Change {
  path: string;
  kind: Artifact["kind"];
  action: "create" | "update" | "unchanged";
}

export interface InstallResult {
  changes: Change[];
  /** What is on disk now, in plan order: recorded even when a later artifact failed. */
  recorded: RecordedArtifact[];
  error: WireError | null;
}

/** Parents of `dir` (itself included) that do not exist, outermost first. */
function missingDirs(dir: string): string[] {
  const out: string[] = [];
  for (let d = dir; !existsSync(d); d = path.dirname(d)) {
    out.unshift(d);
    if (path.dirname(d) === d) break;
  }
  return out;
}

const kindOf = (p: string): "none" | "dir" | "file" | "other" => {
  try {
    const st = lstatSync(p);
    return st.isDirectory() ? "dir" : st.isFile() ? "file" : "other";
  } catch {
    return "none";
  }
};

function conflict(p: string, why: string) {
  return pbError("PB_ERR_INSTALL_CONFLICT", `${p} ${why}; Patchbay will not overwrite it.`, { path: p });
}

/** With `dryRun`, computes the same changes and writes nothing. */
export function applyInstall(
  artifacts: readonly Artifact[],
  previous: AdapterRecord | undefined,
  dryRun: boolean,
): InstallResult {
  const changes: Change[] = [];
  const recorded: RecordedArtifact[] = [];
  for (const a of artifacts) {
    const prev = previous?.artifacts.find((r) => r.path === a.path && r.kind === a.kind);
    try {
      const { action, record } = installOne(a, prev, dryRun);
      changes.push({ path: a.path, kind: a.kind, action });
      if (record) recorded.push(record);
    } catch (err) {
      return { changes, recorded, error: toWire(err) };
    }
  }
  return { changes, recorded, error: null };
}

function installOne(
  a: Artifact,
  prev: RecordedArtifact | undefined,
  dryRun: boolean,
): { action: Change["action"]; record: RecordedArtifact | null } {
  const on = kindOf(a.path);
  if (a.kind === "tree" || a.kind === "file") {
    const want = a.kind === "tree" ? plannedTreeHash(a.files) : sha256(Buffer.from(a.content, "utf8"));
    const have = a.kind === "tree" ? (on === "dir" ? treeHash(a.path) : null) : on === "file" ? fileHash(a.path) : null;
    if (on !== "none" && have === null)
      throw conflict(a.path, `exists and is not a ${a.kind === "tree" ? "folder" : "regular file"}`);
    const createdDirs = prev?.createdDirs ?? missingDirs(path.dirname(a.path));
    if (have === want)
      return { action: "unchanged", record: { kind: a.kind, path: a.path, sha256: want, createdDirs } };
    if (have !== null && !(prev && prev.sha256 === have))
      throw conflict(a.path, "exists with content Patchbay did not write (or it was edited since)");
    if (dryRun) return { action: have === null ? "create" : "update", record: null };
    if (a.kind === "tree") {
      if (have !== null) rmSync(a.path, { recursive: true });
      mkdirSync(a.path, { recursive: true });
      for (const f of a.files) writeFileAtomic(path.join(a.path, f.path), f.content, f.mode ?? 0o644);
    } else {
      writeFileAtomic(a.path, a.content, a.mode ?? 0o644);
    }
    const after = a.kind === "tree" ? treeHash(a.path) : fileHash(a.path);
    return {
      action: have === null ? "create" : "update",
      record: { kind: a.kind, path: a.path, sha256: after!, createdDirs },
    };
  }

  // merge
  if (on !== "none" && on !== "file") throw conflict(a.path, "exists and is not a regular file");
  const onDisk = on === "file" ? readFileSync(a.path, "utf8") : null;
  let text = onDisk;
  const currentSha = onDisk === null ? null : sha256(Buffer.from(onDisk, "utf8"));
  const prevMerge = prev?.kind === "merge" ? prev : undefined;
  const untouched = prevMerge !== undefined && prevMerge.sha256 === currentSha;
  // Entries a previous version of the plan owned and this one no longer declares come out first.
  const stale = (prevMerge?.owned ?? []).filter(
    (o) => !a.entries.some((e) => jsonEqual(e.at, o.at) && jsonEqual(e.append, o.append)),
  );
  if (text !== null && stale.length > 0) text = unmergeJson(text, stale as MergeEntry[], [], a.path).text;
  const merged = mergeJson(text, a.entries, a.path);
  const changed = merged.text !== onDisk;
  const createdContainers = union(prevMerge?.createdContainers ?? [], merged.createdContainers);
  const createdDirs = prevMerge?.createdDirs ?? (text === null ? missingDirs(path.dirname(a.path)) : []);
  let original: { existed: boolean; backup?: string };
  if (untouched) original = prevMerge.original;
  else if (text === null) original = { existed: false };
  else {
    // Re-serialising must give the user's bytes back; when it would not, keep them (but never a
    // copy that already holds our entries).
    const firstInstall = merged.added.length === a.entries.length;
    const roundTrip = unmergeJson(merged.text, a.entries, createdContainers, a.path).text;
    original =
      roundTrip === text || !firstInstall
        ? { existed: true }
        : { existed: true, backup: Buffer.from(text, "utf8").toString("base64") };
  }
  if (!changed) {
    return {
      action: "unchanged",
      record: {
        kind: "merge",
        path: a.path,
        format: "json",
        sha256: currentSha!,
        original,
        owned: a.entries,
        createdContainers,
        createdDirs,
      },
    };
  }
  if (dryRun) return { action: on === "none" ? "create" : "update", record: null };
  const mode = on === "file" ? statSync(a.path).mode & 0o777 : 0o644;
  writeFileAtomic(a.path, merged.text, mode);
  return {
    action: on === "none" ? "create" : "update",
    record: {
      kind: "merge",
      path: a.path,
      format: "json",
      sha256: fileHash(a.path)!,
      original,
      owned: a.entries,
      createdContainers,
      createdDirs,
    },
  };
}

function union(a: readonly string[][], b: readonly string[][]): string[][] {
  const out = [...a];
  for (const x of b) if (!out.some((y) => jsonEqual(x, y))) out.push(x);
  return out;
}

export interface UninstallResult {
  removed: string[];
  restored: string[];
  kept: string[];
  missing: string[];
  unchanged: string[];
  /** Folders install created: try to remove them (when empty) after the record is updated. */
  createdDirs: string[];
}

export function applyUninstall(entry: AdapterRecord, dryRun: boolean): UninstallResult {
  const out: UninstallResult = { removed: [], restored: [], kept: [], missing: [], unchanged: [], createdDirs: [] };
  const keptTrees = entry.artifacts
    .filter((a) => a.kind === "tree" && kindOf(a.path) === "dir" && treeHash(a.path) !== a.sha256)
    .map((a) => a.path);
  // Client configs first (unwire), then files, then trees: a config never points at a hook already deleted.
  const order = [...entry.artifacts].sort(
    (x, y) => ({ merge: 0, file: 1, tree: 2 })[x.kind] - { merge: 0, file: 1, tree: 2 }[y.kind],
  );
  for (const a of order) {
    if (keptTrees.some((t) => isInside(a.path, t))) {
      out.kept.push(a.path);
      continue;
    }
    const on = kindOf(a.path);
    if (on === "none") {
      out.missing.push(a.path);
      out.createdDirs.push(...a.createdDirs);
      continue;
    }
    if (a.kind === "tree" || a.kind === "file") {
      const have = a.kind === "tree" ? treeHash(a.path) : fileHash(a.path);
      if (have !== a.sha256) {
        out.kept.push(a.path);
        continue;
      }
      if (!dryRun) rmSync(a.path, { recursive: a.kind === "tree" });
      out.removed.push(a.path);
      out.createdDirs.push(...a.createdDirs);
      continue;
    }
    if (on !== "file") {
      out.kept.push(a.path);
      continue;
    }
    const text = readFileSync(a.path, "utf8");
    const untouched = sha256(Buffer.from(text, "utf8")) === a.sha256;
    if (untouched && !a.original.existed) {
      if (!dryRun) unlinkSync(a.path);
      out.removed.push(a.path);
      out.createdDirs.push(...a.createdDirs);
      continue;
    }
    const next =
      untouched && a.original.backup !== undefined
        ? { text: Buffer.from(a.original.backup, "base64").toString("utf8"), changed: true }
        : unmergeJson(text, a.owned as MergeEntry[], a.createdContainers, a.path);
    if (!next.changed || next.text === text) {
      out.unchanged.push(a.path);
      continue;
    }
    if (!dryRun) writeFileAtomic(a.path, next.text, statSync(a.path).mode & 0o777);
    out.restored.push(a.path);
  }
  return out;
}

/** Removes folders install created, deepest first, only when empty. */
export function removeEmptyDirs(dirs: readonly string[]): string[] {
  const removed: string[] = [];
  for (const d of [...new Set(dirs)].sort((a, b) => b.length - a.length)) {
    try {
      if (readdirSync(d).length === 0) {
        rmdirSync(d);
        removed.push(d);
      }
    } catch {
      // gone already, or not empty
    }
  }
  return removed;
}
