/**
 * The shape of one progress report, alone so the progress gate can name it without importing the
 * RPC client that owns the gate (the two would import each other). The client declares the same shape
 * as its exported `ProgressUpdate`; the two are one type to the compiler as long as they stay alike.
 */

/** One progress report of a call in flight (already checked: finite numbers, bounded text). */
export interface ProgressUpdate {
  progress: number;
  total?: number;
  message?: string;
}
