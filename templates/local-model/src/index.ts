/**
 * __NAME__: a local-model plugin for Patchbay.
 *
 * As scaffolded it works end to end without a model: run() echoes the prompt (cut to
 * max_tokens words) and embed() hashes words into fixed-size unit vectors, so similar texts get
 * similar vectors. Each place you change to reach a real model server (Ollama, llama.cpp,
 * vLLM, a hosted API) is marked "SUBSTRATE:". The host checks run()'s options and embed()'s
 * inputs before they reach you, and checks that embed() answers one vector per text, all of
 * one dimension, every time.
 */
import { createHash } from "node:crypto";
import { definePlugin, z } from "patchbay/plugin";
import type { LocalModel, RunOptions } from "patchbay/plugin";

// SUBSTRATE: your server's settings, e.g. base_url (a default keeps the two-line connectors.json
// entry bootable), the model tag, an API key marked .meta({ secret: true }).
const config = z.strictObject({
  model: z
    .string()
    .min(1)
    .default("echo")
    .meta({ description: "The model run() uses unless a call passes opts.model." }),
  dimensions: z
    .number()
    .int()
    .min(2)
    .max(4096)
    .default(64)
    .meta({ description: "Length of every vector embed() returns." }),
});

export default definePlugin({
  kind: "local-model",
  config,
  create(cfg, ctx): LocalModel {
    return {
      async health_check() {
        // SUBSTRATE: ask the server whether it is up and has cfg.model (e.g. GET /api/tags).
        // Keep it fast: boot waits for it under health_timeout_ms.
        return true;
      },

      async run(prompt: string, opts: RunOptions = {}): Promise<string> {
        // SUBSTRATE: send the prompt to your server, passing ctx.signal so the request is cancelled
        // when the call's deadline passes, e.g.
        //   const res = await fetch(`${cfg.base_url}/api/generate`, { method: "POST", body, signal: ctx.signal });
        // ctx.remainingMs() says how long is left, if your server takes a timeout of its own.
        const model = opts.model ?? cfg.model;
        ctx.log.debug("run", { model, chars: prompt.length });
        const words = prompt.split(/\s+/).filter(Boolean);
        return (opts.max_tokens === undefined ? words : words.slice(0, opts.max_tokens)).join(" ");
      },

      async embed(texts: string[]): Promise<number[][]> {
        // SUBSTRATE: ask your server for embeddings (one vector per text, in order, one dimension).
        return texts.map((text) => hashedVector(text, cfg.dimensions));
      },
    };
  },
});

/** A bag-of-words vector: each word adds 1 to a slot picked by its hash; scaled to length 1. */
function hashedVector(text: string, dimensions: number): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    vector[createHash("sha256").update(word).digest().readUInt32BE(0) % dimensions] += 1;
  }
  const norm = Math.hypot(...vector);
  return norm === 0 ? vector : vector.map((v) => v / norm);
}
