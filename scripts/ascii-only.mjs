// A rolldown plugin for the worker runtime's bundle (scripts/bundle-runtime.mjs): every character
// outside ASCII in an output chunk is written as its \u escape. Why: V8 keeps a module's source as
// a string for as long as the module lives (lazy compilation and Function.prototype.toString need
// it), and one character above U+00FF (an em dash in a comment, zod's "✖" and "→") makes the whole
// string two bytes per character. zod's chunk alone was 549 KB of heap in every worker instead of
// 275 KB; all chunks together, 0.38 MiB of each idle instance (measured: RSS per instance over 21
// vs 1 instance, fresh processes). An escape means the same character in a string, a template's
// cooked value, a regular expression and a comment; the build fails where it would not (after a
// backslash, in String.raw), rather than change what the code says.
// tests/boot/runtime-bundle.test.ts holds the output to ASCII.

/** `code` with each non-ASCII UTF-16 unit as \uXXXX (an astral character as its surrogate pair). */
export function escapeNonAscii(code, file = "chunk") {
  if (!/[^\x00-\x7f]/.test(code)) return code;
  if (/\\[^\x00-\x7f]/.test(code))
    throw new Error(`${file}: a backslash before a non-ASCII character; its escape would mean something else`);
  if (/String\.raw/.test(code)) throw new Error(`${file}: String.raw sees an escape as written, not the character`);
  return code.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

export function asciiOnly() {
  return {
    name: "ascii-only",
    renderChunk: (code, chunk) => ({ code: escapeNonAscii(code, chunk.fileName), map: null }),
  };
}
