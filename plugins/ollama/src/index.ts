/**
 * ollama: a LocalModel over Ollama's HTTP API. Every request is cancelled by whichever comes
 * first: the call's ctx.signal (the host's deadline), the per-call `opts.timeout_ms`, or the
 * instance's `timeout_ms`. Unlike the reference connector, `opts.model` is honoured.
 */
import { definePlugin, z } from "patchbay/plugin";
import type { LocalModel, RunOptions } from "patchbay/plugin";
import { exchange, type HttpAnswer } from "./http.js";

/** A health probe never waits longer than this, whatever the remaining budget. */
const HEALTH_PROBE_MS = 2_000;

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}

const config = z.strictObject({
  base_url: z
    .string()
    .refine(isHttpUrl, "base_url must be an http:// or https:// URL")
    .default("http://127.0.0.1:11434")
    .meta({ description: "Where Ollama listens." }),
  model: z
    .string()
    .min(1)
    .meta({ description: 'The model tag to use, e.g. "gemma2:9b" (":latest" is implied when no tag is given).' }),
  timeout_ms: z
    .number()
    .int()
    .positive()
    .optional()
    .meta({ description: "Upper bound for one request, on top of the host's per-call deadline." }),
});

/** Ollama reports `gemma2` as `gemma2:latest`; accept either spelling on either side. */
export function sameModel(a: string, b: string): boolean {
  // The tag follows the last path segment ("registry:5000/ns/model" has no tag).
  const norm = (s: string) => (s.slice(s.lastIndexOf("/") + 1).includes(":") ? s : `${s}:latest`);
  return norm(a) === norm(b);
}

class OllamaError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(`ollama: ${message}`, options);
    this.name = "OllamaError";
  }
}

export default definePlugin({
  kind: "local-model",
  config,
  create(cfg, ctx): LocalModel {
    const base = cfg.base_url.replace(/\/+$/, "");

    /** One JSON request, bounded by ctx.signal and the smallest applicable timeout. */
    async function request(
      method: "GET" | "POST",
      path: string,
      body: unknown,
      timeoutMs?: number,
    ): Promise<Record<string, unknown>> {
      const limit = Math.min(timeoutMs ?? Infinity, cfg.timeout_ms ?? Infinity);
      const callSignal = ctx.signal;
      const timeout = Number.isFinite(limit) ? AbortSignal.timeout(limit) : undefined;
      const signal = timeout ? AbortSignal.any([callSignal, timeout]) : callSignal;
      const explain = (err: unknown): Error => {
        if (timeout?.aborted) return new OllamaError(`${method} ${path} timed out after ${limit} ms`, { cause: err });
        if (callSignal.aborted)
          return callSignal.reason instanceof Error
            ? callSignal.reason
            : new OllamaError(`${method} ${path} was cancelled`, { cause: err });
        const cause = err as { code?: string; message?: string };
        return new OllamaError(`cannot reach ${base} (${cause.code ?? cause.message})`, { cause: err });
      };

      let res: HttpAnswer;
      try {
        res = await exchange(method, base + path, body === undefined ? undefined : JSON.stringify(body), signal);
      } catch (err) {
        throw explain(err);
      }
      const text = res.text;
      let data: unknown;
      try {
        data = JSON.parse(text);
      } catch {
        data = undefined;
      }
      if (res.status < 200 || res.status > 299) {
        const reason = (data as { error?: unknown } | undefined)?.error;
        throw new OllamaError(
          `${method} ${path} answered ${res.status}: ${typeof reason === "string" ? reason : text.slice(0, 500)}`,
        );
      }
      if (typeof data !== "object" || data === null)
        throw new OllamaError(`${method} ${path} did not answer with a JSON object`);
      return data as Record<string, unknown>;
    }

    return {
      async health_check() {
        const budget = Math.min(HEALTH_PROBE_MS, ctx.remainingMs());
        if (!(budget > 0)) return false;
        try {
          const data = await request("GET", "/api/tags", undefined, Math.max(1, Math.floor(budget)));
          const models = Array.isArray(data.models) ? (data.models as Array<{ name?: unknown; model?: unknown }>) : [];
          const names = models.flatMap((m) => [m.name, m.model]).filter((n): n is string => typeof n === "string");
          if (names.some((n) => sameModel(n, cfg.model))) return true;
          ctx.log.warn("the configured model is not pulled", {
            model: cfg.model,
            available: [...new Set(names)],
            fix: `ollama pull ${cfg.model}`,
          });
          return false;
        } catch (err) {
          ctx.log.warn("health check failed", { base_url: base, error: (err as Error).message });
          return false;
        }
      },

      async run(prompt: string, opts: RunOptions = {}) {
        const options: Record<string, number> = {};
        if (opts.max_tokens !== undefined) options.num_predict = opts.max_tokens;
        if (opts.temperature !== undefined) options.temperature = opts.temperature;
        const body: Record<string, unknown> = { model: opts.model ?? cfg.model, prompt, stream: false };
        if (Object.keys(options).length > 0) body.options = options;
        const data = await request("POST", "/api/generate", body, opts.timeout_ms);
        if (typeof data.response !== "string")
          throw new OllamaError("/api/generate answered without a `response` string");
        return data.response;
      },

      async embed(texts: string[]) {
        if (!Array.isArray(texts) || texts.length === 0) throw new OllamaError("embed(texts) needs at least one text");
        const data = await request("POST", "/api/embed", { model: cfg.model, input: texts });
        const embeddings = data.embeddings;
        const valid =
          Array.isArray(embeddings) &&
          embeddings.length === texts.length &&
          embeddings.every((v) => Array.isArray(v) && v.every((x) => typeof x === "number"));
        if (!valid)
          throw new OllamaError(`/api/embed did not answer one vector of numbers per text (${texts.length} asked)`);
        return embeddings as number[][];
      },
    };
  },
});
