/**
 * The shape of one progress report, and how a worker's report becomes one; alone so the progress
 * gate can name it without importing the RPC client that owns the gate (the two would import each
 * other). The client re-exports it as its (and the public API's) `ProgressUpdate`.
 */

/** One progress report of a call in flight (already checked: finite numbers, bounded text). */
export interface ProgressUpdate {
  progress: number;
  total?: number;
  message?: string;
}

const MAX_PROGRESS_MESSAGE = 1_000;

/** A worker's report as a ProgressUpdate (finite numbers, bounded text), or null when its progress is not one. */
export function readProgress(msg: { progress: unknown; total?: unknown; message?: unknown }): ProgressUpdate | null {
  if (typeof msg.progress !== "number" || !Number.isFinite(msg.progress)) return null;
  const update: ProgressUpdate = { progress: msg.progress };
  if (typeof msg.total === "number" && Number.isFinite(msg.total)) update.total = msg.total;
  if (typeof msg.message === "string") update.message = msg.message.slice(0, MAX_PROGRESS_MESSAGE);
  return update;
}
