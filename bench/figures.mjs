// The figures every benchmark prints: each is a ratio (or an amount) with the goal it must stay
// under. scripts/bench.mjs runs each topic bench in its own process and gathers their figures
// through the JSON-lines file named by PATCHBAY_BENCH_FIGURES, for the one summary table.
import { appendFileSync } from "node:fs";

export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export function percentile(xs, p) {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** One figure: `value` against its upper bound `goal` (Infinity: reported, no goal). */
export function figure(name, value, goal, unit, detail = "") {
  const goalText = Number.isFinite(goal) ? `goal ≤ ${goal}${unit}` : "no goal";
  console.error(`  ${name}: ${value.toFixed(2)}${unit} (${goalText}) ${detail}`);
  const file = process.env.PATCHBAY_BENCH_FIGURES;
  if (file)
    appendFileSync(
      file,
      `${JSON.stringify({ name, value, goal: Number.isFinite(goal) ? goal : null, unit, detail })}\n`,
    );
}
