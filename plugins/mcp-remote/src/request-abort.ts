/**
 * A request's own AbortSignal, following the transport's. The SDK's HTTP transport hands every
 * fetch the one signal of its connection, and undici adds an abort listener to it per request that
 * it removes only on abort or when garbage collection gets to it: a gateway making calls for days
 * grows that list without bound (Node warns past 1,500). Each request here gets a private
 * controller instead (undici's listener goes with it), bridged from the connection's signal by one
 * listener that is removed as soon as the request is done, so closing the connection still
 * aborts every request and stream in flight.
 */
export interface RequestAbort {
  signal: AbortSignal | undefined;
  /** Removes the bridge; idempotent. Call it when the response body is done (or was never read). */
  done(): void;
}

export function requestAbort(parent: AbortSignal | null | undefined): RequestAbort {
  if (!parent) return { signal: undefined, done: () => undefined };
  const own = new AbortController();
  if (parent.aborted) {
    own.abort(parent.reason);
    return { signal: own.signal, done: () => undefined };
  }
  const follow = () => own.abort(parent.reason);
  parent.addEventListener("abort", follow, { once: true });
  return { signal: own.signal, done: () => parent.removeEventListener("abort", follow) };
}

/** A stream that passes `body` on and calls `done` once it ends, errors or is cancelled. */
export function untilDone(body: ReadableStream<Uint8Array>, done: () => void): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { value, done: ended } = await reader.read();
        if (ended) {
          done();
          controller.close();
        } else controller.enqueue(value);
      } catch (err) {
        done();
        controller.error(err);
      }
    },
    async cancel(reason) {
      done();
      await reader.cancel(reason);
    },
  });
}
