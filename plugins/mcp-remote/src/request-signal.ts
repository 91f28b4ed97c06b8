/**
 * The AbortSignal each request hands the SDK: aborted when the caller's signal aborts (the host's
 * deadline or cancel, which makes the SDK send notifications/cancelled) or when the session breaks.
 *
 * Why a plain controller per request, linked by hand, rather than
 * `AbortSignal.any([ctx.signal, session.broken.signal])`: the SDK adds an abort listener to every
 * request's signal and never removes it, and Node keeps a composite signal that has listeners
 * alive for as long as one of its sources may still abort. The session's signal lives as long as
 * the session, so every request ever sent stayed reachable with its closures (params, handlers,
 * the progress relay): about 8 KB per call, measured, which made garbage collection the largest
 * single cost of a tools/call and grows until the worker's heap limit. A plain controller, with
 * our listener removed when the request settles, is garbage as soon as the request is.
 */
export class RequestSignals {
  private readonly live = new Set<AbortController>();

  /** A signal for one request under `parent`; call `done()` when the request has settled. */
  open(parent: AbortSignal): { signal: AbortSignal; done: () => void } {
    const controller = new AbortController();
    if (parent.aborted) {
      controller.abort(parent.reason);
      return { signal: controller.signal, done: noop };
    }
    const onAbort = () => controller.abort(parent.reason);
    parent.addEventListener("abort", onAbort, { once: true });
    this.live.add(controller);
    return {
      signal: controller.signal,
      done: () => {
        parent.removeEventListener("abort", onAbort);
        this.live.delete(controller);
      },
    };
  }

  /** Aborts every request still open (the session broke under them). */
  abortAll(reason: Error): void {
    for (const c of this.live) c.abort(reason);
    this.live.clear();
  }

  /** Requests open now (for tests: none may stay behind after they settle). */
  get size(): number {
    return this.live.size;
  }
}

const noop = () => {};
