/**
 * A set of listeners the host tells of an event from a worker (a resource update, a changed list): one
 * listener that throws must not keep the event from the others, nor reach the worker's message loop.
 */
export class Listeners<T> {
  private readonly fns = new Set<(event: T) => void>();

  get size(): number {
    return this.fns.size;
  }

  /** Returns the function that stops listening. */
  add(fn: (event: T) => void): () => void {
    this.fns.add(fn);
    return () => void this.fns.delete(fn);
  }

  emit(event: T): void {
    for (const fn of this.fns) {
      try {
        fn(event);
      } catch {
        // One listener failing must not keep the event from the others.
      }
    }
  }
}
