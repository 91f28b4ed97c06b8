/**
 * What this client tells the server it can do, and the handlers behind each claim. Nothing is
 * declared that is not served: roots only when configured, sampling only when a localModels
 * instance is configured to answer it, elicitation with the configured policy (decline by
 * default, with a reason the server can show). Server log messages land in the instance log at
 * their level, bounded so a flooding server cannot flood the host.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { ClientCapabilities, CreateMessageRequest } from "@modelcontextprotocol/sdk/types.js";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  McpError,
  ErrorCode,
} from "@modelcontextprotocol/sdk/types.js";
import type { PluginContext } from "patchbay/plugin";
import { LogBudget } from "./budget.js";
import type { ClientRequestBudget } from "./client-budget.js";
import type { McpRemoteConfig } from "./config.js";

/** Server log messages forwarded per second; the rest are counted and reported once a second. */
const LOG_BUDGET_PER_SECOND = 100;
const MAX_LOG_DATA_CHARS = 2_000;
const MAX_SAMPLING_PROMPT_CHARS = 200_000;
/** Sampling requests served at once: a server cannot queue unbounded work on the operator's model. */
const MAX_CONCURRENT_SAMPLING = 2;

export function clientCapabilities(cfg: McpRemoteConfig): ClientCapabilities {
  const caps: ClientCapabilities = {};
  if (cfg.roots) caps.roots = { listChanged: false };
  if (cfg.sampling) caps.sampling = {};
  // Declared either way: a server that hides its elicitation tools from us helps nobody; we answer honestly.
  caps.elicitation = cfg.elicitation === "accept_defaults" ? { form: { applyDefaults: true } } : { form: {} };
  return caps;
}

type Level = "debug" | "info" | "warn" | "error";
const LEVELS: Record<string, Level> = {
  debug: "debug",
  info: "info",
  notice: "info",
  warning: "warn",
  error: "error",
  critical: "error",
  alert: "error",
  emergency: "error",
};

function clip(value: unknown): unknown {
  if (value === undefined) return undefined;
  let text: string;
  try {
    text = typeof value === "string" ? value : JSON.stringify(value);
  } catch {
    text = String(value);
  }
  return text.length > MAX_LOG_DATA_CHARS ? `${text.slice(0, MAX_LOG_DATA_CHARS)}…` : value;
}

/** Installs the request and notification handlers that back clientCapabilities(cfg). */
export function installHandlers(
  client: Client,
  cfg: McpRemoteConfig,
  ctx: PluginContext,
  target: () => string,
  asks: ClientRequestBudget,
): void {
  if (cfg.roots) {
    const roots = cfg.roots.map((r) => (r.name === undefined ? { uri: r.uri } : { uri: r.uri, name: r.name }));
    client.setRequestHandler(ListRootsRequestSchema, () => {
      asks.admit("roots");
      return { roots };
    });
  }

  if (cfg.sampling) {
    const { model, max_tokens } = cfg.sampling;
    let running = 0;
    client.setRequestHandler(CreateMessageRequestSchema, async (request, extra) => {
      asks.admit("sampling");
      if (running >= MAX_CONCURRENT_SAMPLING)
        throw new McpError(
          ErrorCode.InternalError,
          `${model} is busy with ${running} sampling requests; try again later`,
        );
      running++;
      try {
        return await sample(request.params, extra.signal);
      } finally {
        running--;
      }
    });
    const sample = async (params: CreateMessageRequest["params"], signal: AbortSignal) => {
      const lines: string[] = [];
      if (params.systemPrompt) lines.push(`system: ${params.systemPrompt}`);
      for (const m of params.messages) {
        const parts = Array.isArray(m.content) ? m.content : [m.content];
        for (const p of parts) {
          if (p.type !== "text")
            throw new McpError(
              ErrorCode.InvalidParams,
              `sampling through ${model} supports text messages only (got ${p.type})`,
            );
          lines.push(`${m.role}: ${p.text}`);
        }
      }
      const prompt = lines.join("\n\n");
      if (prompt.length > MAX_SAMPLING_PROMPT_CHARS)
        throw new McpError(
          ErrorCode.InvalidParams,
          `the sampling prompt is longer than ${MAX_SAMPLING_PROMPT_CHARS} characters`,
        );
      const opts: Record<string, unknown> = { max_tokens: Math.min(params.maxTokens ?? max_tokens, max_tokens) };
      if (typeof params.temperature === "number") opts.temperature = params.temperature;
      if (params.stopSequences) opts.stop = params.stopSequences;
      ctx.log.info("serving a sampling request", { target: target(), model, chars: prompt.length });
      const run = ctx.connectors.get(model) as unknown as {
        run(prompt: string, opts?: Record<string, unknown>): Promise<string>;
      };
      const text = await Promise.race([
        run.run(prompt, opts),
        new Promise<never>((_, reject) =>
          signal.addEventListener(
            "abort",
            () => reject(new McpError(ErrorCode.RequestTimeout, "sampling cancelled by the server")),
            { once: true },
          ),
        ),
      ]);
      return {
        role: "assistant" as const,
        content: { type: "text" as const, text: String(text) },
        model,
        stopReason: "endTurn",
      };
    };
  }

  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    asks.admit("elicitation");
    if (cfg.elicitation === "accept_defaults" && request.params.mode !== "url") {
      ctx.log.info("elicitation accepted with the schema's defaults (elicitation: accept_defaults)", {
        target: target(),
      });
      // The SDK fills the schema's defaults into the empty content (form.applyDefaults).
      return { action: "accept" as const, content: {} };
    }
    ctx.log.info(
      "elicitation declined: no user is attached to this connector (set elicitation in its config to change this)",
      {
        target: target(),
        message: clip(request.params.message),
      },
    );
    return { action: "decline" as const };
  });

  const budget = new LogBudget(LOG_BUDGET_PER_SECOND, (dropped) =>
    ctx.log.warn("server log messages dropped: more than the budget per second", {
      target: target(),
      dropped,
      budget: LOG_BUDGET_PER_SECOND,
    }),
  );
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    if (!budget.take()) return;
    const level = LEVELS[n.params.level] ?? "info";
    const data: Record<string, unknown> = { target: target(), mcp_level: n.params.level };
    if (n.params.logger !== undefined) data.logger = clip(n.params.logger);
    if (n.params.data !== undefined) data.data = clip(n.params.data);
    ctx.log[level]("server log", data);
  });
}
