/**
 * "Did you mean" for unknown keys. A typo such as `allowed_tool` must fail loudly (the reference
 * system accepted it and so allowed every tool), and the error should name the fix.
 */

/** Edit distance (insert, delete, substitute), small strings only. */
export function levenshtein(a: string, b: string): number {
  if (a === b) return 0;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
    }
    prev = cur;
  }
  return prev[b.length];
}

/** Case, `_` and `-` do not distinguish keys for a human: allowedTools ~ allowed_tools. */
function normalize(key: string): string {
  return key.toLowerCase().replace(/[_-]/g, "");
}

/** Shortest prefix that counts as "the same word begun": `timeout` → `timeout_ms`. */
const MIN_PREFIX = 4;

/**
 * The candidate `input` most likely meant, or null. Ranked: same key up to case/separators,
 * then edit distance <= 2, then one being a prefix of the other; ties go to the earlier candidate.
 */
export function suggest(input: string, candidates: readonly string[]): string | null {
  let best: { candidate: string; rank: number } | null = null;
  const n = normalize(input);
  for (const candidate of candidates) {
    if (candidate === input) continue;
    const c = normalize(candidate);
    let rank: number;
    if (c === n) rank = 0;
    else {
      const distance = levenshtein(input, candidate);
      if (distance <= 2) rank = distance;
      else if (Math.min(n.length, c.length) >= MIN_PREFIX && (c.startsWith(n) || n.startsWith(c))) rank = 3;
      else continue;
    }
    if (!best || rank < best.rank) best = { candidate, rank };
  }
  return best?.candidate ?? null;
}
