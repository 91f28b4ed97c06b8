/**
 * http-webhook-agent: every agent has a URL; a delivery is one JSON POST of the payload (seed
 * 000: `kind`, `content`/`prompt`, `meta`, provenance) plus `agent_id`. A 2xx answer is the
 * substrate's acknowledgement; its JSON body may carry `delivery_id` and `delivery_skipped`.
 * Anything else throws, so a failure is never reported as a delivery. Every request is bounded
 * by `timeout_ms` and the host's deadline (ctx.signal), and is not retried: the receiver
 * dedupes on meta.dispatch_id, so the caller may safely retry instead.
 */
import { definePlugin, z } from "patchbay/plugin";
import type { AgentConnector, AgentResponse, DeliveryPayload, RequestResponseOpts, WakeOpts } from "patchbay/plugin";
import { sign } from "./signing.js";

const httpUrl = z.string().refine((v) => {
  try {
    return ["http:", "https:"].includes(new URL(v).protocol);
  } catch {
    return false;
  }
}, "must be an http:// or https:// URL");

const agentConfig = z.strictObject({
  url: httpUrl.meta({ description: "Where deliveries (and, unless wake_url is set, wakes and requests) are POSTed." }),
  wake_url: httpUrl.optional().meta({ description: "Where wakes are POSTed. Default: url." }),
  name: z.string().optional().meta({ description: "A display name, reported by list_agents() as agent_name." }),
  headers: z
    .record(z.string(), z.string().meta({ secret: true }))
    .optional()
    .meta({ secret: true, description: "Extra headers (e.g. Authorization); values are secrets." }),
});

const config = z.strictObject({
  agents: z
    .record(
      z.string().regex(/^[^\u0000-\u001f\u007f]{1,200}$/, "agent ids are 1-200 characters without control characters"),
      agentConfig,
    )
    .refine((a) => Object.keys(a).length > 0, "name at least one agent")
    .meta({ description: "Agent id → its endpoint." }),
  secret: z.string().min(16).optional().meta({
    secret: true,
    description:
      "HMAC-SHA256 key (at least 16 characters); when set every request carries X-Patchbay-Timestamp and X-Patchbay-Signature.",
  }),
  signature_header: z
    .string()
    .regex(/^[A-Za-z0-9-]+$/)
    .default("x-patchbay-signature")
    .meta({ description: "The header that carries the signature." }),
  timeout_ms: z
    .number()
    .int()
    .positive()
    .default(10_000)
    .meta({ description: "Upper bound for one request, on top of the host's deadline." }),
  health_method: z
    .enum(["HEAD", "OPTIONS", "GET"])
    .default("HEAD")
    .meta({ description: "How health_check probes each endpoint. Healthy: any answer below 400, or 405." }),
});

type Config = z.output<typeof config>;

/** The longest one health probe may take, whatever the host's health budget. */
const HEALTH_PROBE_MS = 3_000;

export default definePlugin({
  kind: "agent",
  config,
  create(cfg: Config, ctx): AgentConnector {
    function endpoint(agent_id: string, which: "url" | "wake_url" = "url"): string {
      const agent = Object.hasOwn(cfg.agents, agent_id) ? cfg.agents[agent_id] : undefined;
      if (!agent)
        throw new Error(
          `unknown agent ${JSON.stringify(agent_id)}; this connector delivers to: ${Object.keys(cfg.agents).join(", ")}`,
        );
      return (which === "wake_url" ? agent.wake_url : undefined) ?? agent.url;
    }

    /** One signed JSON POST; answers the parsed JSON body (or {} for an empty one) of a 2xx answer. */
    async function post(
      agent_id: string,
      url: string,
      event: string,
      body: unknown,
      timeoutMs = cfg.timeout_ms,
    ): Promise<Record<string, unknown>> {
      const text = JSON.stringify(body);
      const timestamp = Date.now();
      const headers: Record<string, string> = {
        ...(cfg.agents[agent_id].headers ?? {}),
        "content-type": "application/json",
        "x-patchbay-event": event,
        "x-patchbay-timestamp": String(timestamp),
      };
      const dispatch = (body as { meta?: { dispatch_id?: string } }).meta?.dispatch_id;
      if (dispatch) headers["x-patchbay-dispatch-id"] = dispatch;
      if (cfg.secret) headers[cfg.signature_header] = sign(cfg.secret, timestamp, text);
      const limit = Math.min(timeoutMs, cfg.timeout_ms);
      const timeout = AbortSignal.timeout(limit);
      let res: Response;
      try {
        // redirect "manual": a redirected POST would silently become a GET elsewhere.
        res = await fetch(url, {
          method: "POST",
          headers,
          body: text,
          signal: AbortSignal.any([ctx.signal, timeout]),
          redirect: "manual",
        });
      } catch (err) {
        if (timeout.aborted) throw new Error(`${event} to ${safe(url)} timed out after ${limit} ms`, { cause: err });
        if (ctx.signal.aborted)
          throw ctx.signal.reason instanceof Error
            ? ctx.signal.reason
            : new Error(`${event} to ${safe(url)} was cancelled`);
        const cause = (err as { cause?: { code?: string } }).cause?.code;
        throw new Error(`${event} to ${safe(url)} failed: ${cause ?? (err as Error).message}`, { cause: err });
      }
      const answer = await res.text().catch(() => "");
      if (res.status < 200 || res.status > 299)
        throw new Error(`${event} to ${safe(url)} answered ${res.status}${answer ? `: ${answer.slice(0, 300)}` : ""}`);
      if (!answer.trim()) return {};
      try {
        const parsed = JSON.parse(answer);
        return parsed && typeof parsed === "object" && !Array.isArray(parsed) ? parsed : {};
      } catch {
        return {};
      }
    }

    async function probe(url: string, budgetMs: number): Promise<string | null> {
      try {
        const res = await fetch(url, {
          method: cfg.health_method,
          signal: AbortSignal.timeout(budgetMs),
          redirect: "manual",
        });
        await res.body?.cancel();
        return res.status < 400 || res.status === 405 ? null : `answered ${res.status}`;
      } catch (err) {
        return (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message;
      }
    }

    return {
      async health_check() {
        // Bounded by the host's health deadline, not timeout_ms: a worker's first fetch alone costs
        // a few hundred ms (undici loads lazily), which a tight delivery timeout would misread.
        const budget = Math.floor(Math.min(HEALTH_PROBE_MS, ctx.remainingMs() - 50));
        if (!(budget > 0)) return false;
        const urls = [...new Set(Object.values(cfg.agents).flatMap((a) => [a.url, a.wake_url ?? a.url]))];
        const problems = (await Promise.all(urls.map(async (u) => [u, await probe(u, budget)] as const))).filter(
          ([, p]) => p !== null,
        );
        for (const [u, p] of problems) ctx.log.warn("endpoint is not reachable", { url: safe(u), problem: p });
        return problems.length === 0;
      },

      async list_agents() {
        return Object.entries(cfg.agents).map(([agent_id, a]) =>
          a.name ? { agent_id, agent_name: a.name } : { agent_id },
        );
      },

      async deliver(agent_id: string, payload: DeliveryPayload) {
        const answer = await post(agent_id, endpoint(agent_id), "delivery", { agent_id, ...payload });
        const receipt: { delivered_at: number; delivery_id?: string; delivery_skipped?: boolean } = {
          delivered_at: Date.now(),
        };
        receipt.delivery_id = typeof answer.delivery_id === "string" ? answer.delivery_id : payload.meta.dispatch_id;
        if (answer.delivery_skipped === true) receipt.delivery_skipped = true;
        return receipt;
      },

      async wake(agent_id: string, opts: WakeOpts = {}) {
        const answer = await post(agent_id, endpoint(agent_id, "wake_url"), "wake", {
          agent_id,
          kind: "wake",
          ...opts,
        });
        const woken: { woken_at: number; session_id?: string } = { woken_at: Date.now() };
        if (typeof answer.session_id === "string") woken.session_id = answer.session_id;
        return woken;
      },

      async request_response(
        agent_id: string,
        payload: DeliveryPayload,
        opts: RequestResponseOpts,
      ): Promise<AgentResponse> {
        const answer = await post(
          agent_id,
          endpoint(agent_id),
          "request",
          { agent_id, ...payload, expects_response: true },
          opts.timeout_ms ?? cfg.timeout_ms,
        );
        if (typeof answer.content !== "string")
          throw new Error(`the receiver for ${JSON.stringify(agent_id)} answered no "content" string to a request`);
        // The receiver's own correlation_id is passed on as-is: the host checks that it echoes the request's.
        return {
          correlation_id: String(answer.correlation_id ?? ""),
          content: answer.content,
          responded_at: Date.now(),
        };
      },
    };
  },
});

/** A URL fit for a log line: no credentials, no query string (either may hold a token). */
function safe(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return "(invalid url)";
  }
}
