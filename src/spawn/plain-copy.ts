/**
 * A copy of a message that gives what structuredClone gives, faster for plain data. The channel
 * of "isolation": "host" (host-runtime.ts) copies every message each way, as a port would; Node
 * 20's structuredClone costs ~10 µs per small message there (measured inside `serve --mcp`:
 * about as much as the rest of the channel), a walk over plain objects and arrays a fraction of that.
 *
 * Only values whose copy is certain to equal structuredClone's take the walk: primitives (strings
 * and bigints are immutable, so sharing them is copying them), objects whose prototype is
 * Object.prototype, and arrays without holes or extra keys, not nested deeper than MAX_DEPTH.
 * Anything else (a Date, a Map, a typed array, a SharedArrayBuffer, a null-prototype object, a
 * class instance, a "__proto__" key, a function, a cycle) sends the whole message through
 * structuredClone, which also throws what it throws for a value no port could carry. The one
 * difference: an object reached twice (not a cycle) is copied twice, where structuredClone makes
 * one copy; equal data, which is all JSON (and the guard, rpc-check.ts) can see.
 */

/** Deeper than this, structuredClone takes over (so a cycle ends there, and the stack stays small). */
const MAX_DEPTH = 32;
/** An array longer than this goes to structuredClone (checking it for extra keys would cost more than it saves). */
const MAX_ARRAY = 256;

const NOT_PLAIN: unique symbol = Symbol("not plain");

export function copyMessage<T>(value: T): T {
  const copy = walk(value, 0);
  return copy === NOT_PLAIN ? structuredClone(value) : (copy as T);
}

function walk(v: unknown, depth: number): unknown {
  if (typeof v !== "object" || v === null) {
    // A function or a symbol: structuredClone refuses it (and says so).
    return typeof v === "function" || typeof v === "symbol" ? NOT_PLAIN : v;
  }
  if (depth >= MAX_DEPTH) return NOT_PLAIN;
  const proto = Object.getPrototypeOf(v);
  if (proto === Array.prototype) {
    if (!Array.isArray(v)) return NOT_PLAIN;
    const n = v.length;
    if (n > MAX_ARRAY || Object.keys(v).length !== n) return NOT_PLAIN; // holes, or keys besides the indexes
    const out = new Array(n);
    for (let i = 0; i < n; i++) {
      const c = walk(v[i], depth + 1);
      if (c === NOT_PLAIN) return NOT_PLAIN;
      out[i] = c;
    }
    return out;
  }
  if (proto !== Object.prototype) return NOT_PLAIN;
  const out: Record<string, unknown> = {};
  // Own enumerable string keys, in order, getters read once: what structuredClone reads.
  for (const k of Object.keys(v)) {
    if (k === "__proto__") return NOT_PLAIN; // an assignment would set the copy's prototype
    const c = walk((v as Record<string, unknown>)[k], depth + 1);
    if (c === NOT_PLAIN) return NOT_PLAIN;
    out[k] = c;
  }
  return out;
}
