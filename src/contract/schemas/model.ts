/**
 * The local-model contract's shapes: run options and embeddings (checked by a loop, not zod's
 * array walk, because embeddings are large).
 */
import { z } from "zod";

export const RunOptionsSchema = z.strictObject({
  model: z.string().min(1).optional(),
  max_tokens: z.number().int().positive().optional(),
  temperature: z.number().min(0).max(2).optional(),
  timeout_ms: z.number().int().positive().optional(),
});

/**
 * Non-empty vectors of finite numbers; the host checks count and dimension. A plain loop, not
 * z.array(z.number()): embeddings are large (32 × 768 numbers took zod ~740 µs, the loop ~20 µs).
 */
export const EmbeddingsSchema = z.custom<number[][]>((value) => {
  if (!Array.isArray(value)) return false;
  for (const row of value) {
    if (!Array.isArray(row) || row.length === 0) return false;
    for (let i = 0; i < row.length; i++) if (typeof row[i] !== "number" || !Number.isFinite(row[i])) return false;
  }
  return true;
}, "must be an array of non-empty vectors of finite numbers");
