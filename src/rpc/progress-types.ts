/**
 * The shape of one progress report, alone so the progress gate can name it without importing the
 * RPC client that owns the gate (the two would import each other). The client declares the same shape
 * as its exported `ProgressUpdate`, and the compiler keeps the two alike: the client hands its updates
 * to the gate and takes the gate's back in its caller's onProgress, so a required field added to one
 * side only fails the typecheck (an optional one passes through the gate unchanged either way).
 */

/** One progress report of a call in flight (already checked: finite numbers, bounded text). */
export interface ProgressUpdate {
  progress: number;
  total?: number;
  message?: string;
}
