/**
 * The audit trail on disk: `.patchbay/audit.log`, one JSON line per request that reached an
 * instance. A call only appends to a buffer; the buffer is written a batch at a time off the hot
 * path, so a slow disk never slows a call. Past `maxBytes` the file is rotated (audit.log →
 * audit.log.1 → … → audit.log.<keep>, the oldest dropped), so the trail never fills the disk.
 * A write that fails loses its batch, is counted, and is reported once: a full disk must never
 * fail the calls it would have recorded.
 */
import { open, rename, rm, stat, type FileHandle } from "node:fs/promises";
import path from "node:path";
import { AUDIT_DEFAULTS } from "../../config/defaults.js";
import type { AuditEntry } from "../clients/gate.js";
import { Batches } from "./batches.js";

export const AUDIT_FILE = "audit.log";

/** How long a line may wait in the buffer before its batch is written. */
const FLUSH_MS = 100;
/** A buffer this large is written at once, whatever the timer says. */
const FLUSH_BYTES = 256 * 1024;
/** While the disk refuses, at most this much waits; past it the oldest lines are dropped and counted. */
const MAX_PENDING_BYTES = 8 * 1024 * 1024;

export interface AuditFileOptions {
  maxBytes?: number;
  keep?: number;
  /** Told once, at the first lost batch (serve: stderr). */
  onError?: (err: Error) => void;
}

/** The file names in reading order, oldest first: audit.log.<keep> … audit.log.1, audit.log. */
function auditFiles(dir: string, keep: number): string[] {
  const base = path.join(dir, AUDIT_FILE);
  return [...Array.from({ length: keep }, (_, i) => `${base}.${keep - i}`), base];
}

export class AuditFile {
  readonly file: string;
  /** Lines lost to write errors (or dropped while the disk refused). */
  lost = 0;
  private readonly maxBytes: number;
  private readonly keep: number;
  private pending: string[] = [];
  private pendingBytes = 0;
  private handle: FileHandle | null = null;
  private size = 0;
  private inode = 0;
  private readonly batches = new Batches(
    () => this.pending.length > 0,
    () => this.writeBatch(),
  );
  private reported = false;
  private closed = false;

  constructor(
    private readonly dir: string,
    private readonly opts: AuditFileOptions = {},
  ) {
    this.file = path.join(dir, AUDIT_FILE);
    this.maxBytes = Math.max(1024, opts.maxBytes ?? AUDIT_DEFAULTS.maxBytes);
    this.keep = Math.max(1, opts.keep ?? AUDIT_DEFAULTS.keep);
  }

  /** Never throws and never waits: the line is written with the next batch. */
  record(entry: AuditEntry): void {
    if (this.closed) return;
    const line = JSON.stringify(entry) + "\n";
    this.pending.push(line);
    this.pendingBytes += line.length;
    while (this.pendingBytes > MAX_PENDING_BYTES && this.pending.length > 1) {
      this.pendingBytes -= this.pending.shift()!.length;
      this.lost++;
    }
    this.batches.added(FLUSH_MS, this.pendingBytes >= FLUSH_BYTES);
  }

  /** Writes everything buffered; resolves when it is on disk (or counted as lost). */
  async flush(): Promise<void> {
    await this.batches.flush();
  }

  /** Flushes and closes the file: a clean shutdown loses no line. */
  async close(): Promise<void> {
    await this.flush();
    this.closed = true;
    await this.handle?.close().catch(() => undefined);
    this.handle = null;
  }

  private async writeBatch(): Promise<void> {
    const lines = this.pending;
    this.pending = [];
    this.pendingBytes = 0;
    let at = 0;
    try {
      while (at < lines.length) {
        const handle = await this.open();
        // As many lines as fit under the cap; at least one in a new file, however long it is.
        let end = at;
        let bytes = 0;
        while (end < lines.length) {
          const n = Buffer.byteLength(lines[end]);
          if (this.size + bytes + n > this.maxBytes && (this.size > 0 || end > at)) break;
          bytes += n;
          end++;
        }
        if (end > at) {
          await handle.write(lines.slice(at, end).join(""));
          this.size += bytes;
          at = end;
        }
        if (at < lines.length) await this.rotate(Buffer.byteLength(lines[at]));
      }
    } catch (err) {
      this.lost += lines.length - at;
      // The handle may be the cause (a deleted folder, a closed fd): the next batch opens afresh.
      await this.handle?.close().catch(() => undefined);
      this.handle = null;
      if (!this.reported) {
        this.reported = true;
        this.opts.onError?.(err as Error);
      }
    }
  }

  private async open(): Promise<FileHandle> {
    // Another serve of the same config may have rotated the file under this one: follow the
    // name, so this process does not go on growing what is now audit.log.1.
    if (this.handle && (await this.stillNamed())) return this.handle;
    await this.handle?.close().catch(() => undefined);
    // 0600 like the token next to it: the trail says who called what.
    this.handle = await open(this.file, "a", 0o600);
    const st = await this.handle.stat();
    this.size = st.size;
    this.inode = st.ino;
    return this.handle;
  }

  /** The open file is still audit.log; its size then includes what other processes appended. */
  private async stillNamed(): Promise<boolean> {
    try {
      const st = await stat(this.file);
      if (st.ino !== this.inode) return false;
      this.size = st.size;
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Moves audit.log to audit.log.1 (and each older file up one), unless another serve of the same
   * config did so meanwhile and the new audit.log has room for `need` bytes. Two writers renaming
   * the chain at once would overwrite each other's files, so the chain moves under a lock file.
   */
  private async rotate(need: number): Promise<void> {
    await this.handle?.close();
    this.handle = null;
    this.size = 0;
    const lock = `${this.file}.lock`;
    if (!(await takeLock(lock))) return; // Still held: this batch goes over the cap, the next one tries again.
    try {
      const size = await stat(this.file).then(
        (st) => st.size,
        () => 0,
      );
      if (size === 0 || size + need <= this.maxBytes) return;
      const names = auditFiles(this.dir, this.keep);
      await rm(names[0], { force: true });
      for (let i = 1; i < names.length; i++) {
        // A missing file in the chain (a smaller keep before) is no error.
        await rename(names[i], names[i - 1]).catch((err: NodeJS.ErrnoException) => {
          if (err.code !== "ENOENT") throw err;
        });
      }
    } finally {
      await rm(lock, { force: true });
    }
  }
}

/** How long a writer waits for another's rotation, and when a lock left by a crashed process is taken over. */
const LOCK_WAIT_MS = 2_000;
const LOCK_STALE_MS = 10_000;

/** Creates `lock` exclusively, waiting a little while another writer holds it; false if it never could. */
async function takeLock(lock: string): Promise<boolean> {
  const end = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      await (await open(lock, "wx", 0o600)).close();
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
    const age = await stat(lock).then(
      (st) => Date.now() - st.mtimeMs,
      () => 0,
    );
    if (age > LOCK_STALE_MS) await rm(lock, { force: true });
    else if (Date.now() > end) return false;
    else await new Promise((r) => setTimeout(r, 10));
  }
}
