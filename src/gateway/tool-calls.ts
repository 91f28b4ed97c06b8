/**
 * tools/call as the gateway runs it, for every transport: the tool's route in the catalog, its
 * arguments checked (size, then the tool's input schema) before anything crosses, an idempotency
 * key honoured (idempotency.ts), then host.call, so the guard, allowed_tools, deadlines and
 * secret scrubbing apply exactly as for embedders. A tool result passes through unchanged; a
 * Patchbay failure becomes a tool error whose text starts with its PB_ERR_* code.
 */
import type { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { pbError, toWire, type PatchbayError } from "../errors.js";
import type { Host } from "../host/api.js";
import type { ProgressUpdate } from "../rpc/client.js";
import type { CatalogTool } from "./catalog.js";
import { toPositional } from "./exposure.js";
import { derivedRecordId, IdempotencyBook, idempotencyKeyOf } from "./idempotency.js";
import type { CallObserver } from "./metrics.js";
import type { CallSpan, CallTrace, CallTracer } from "./tracing.js";
import { StatsBook } from "./stats.js";
import { clip, isToolResult, jsonBytes, outcomeOf, toolError } from "./tool-results.js";
import { OPERATOR } from "./clients/caller.js";
import { ClientGate, type CallScope } from "./clients/gate.js";
import { outcomeOfError, roundMs } from "./audit/requests.js";
import { ToolArgs } from "./tool-args.js";

export interface ToolCallDeps {
  host: Host;
  /** The live catalog's tools (a new map after each refresh). */
  tools(): ReadonlyMap<string, CatalogTool>;
  /** Tools withheld by their pins, by name: the refusal a call of one gets. */
  withheld(): ReadonlyMap<string, PatchbayError>;
  /** Null, or a promise that settles once `instance`'s announced list change has been read and checked. */
  fresh(instance: string, signal?: AbortSignal): Promise<void> | null;
  /** False until the boot has settled: a call of a tool not yet in the catalog waits for it. */
  live(): boolean;
  booted(signal?: AbortSignal): Promise<void>;
  ajv: AjvJsonSchemaValidator;
}

export class ToolCalls {
  readonly stats = new StatsBook();
  /** Keyed calls this gateway answered, so a retry with the same key is not run twice. */
  readonly idempotency = new IdempotencyBook();
  /** Told of every call's outcome when metrics are on (metrics.ts); null costs nothing. */
  observer: CallObserver | null = null;
  /** Traces every call when an OTEL_* variable asks (tracing.ts); null costs nothing. */
  tracer: CallTracer | null = null;
  /** Per-client policy, quota and audit (clients/gate.ts); the operator without an audit sink skips it. */
  readonly gate = new ClientGate();
  private readonly args: ToolArgs;

  constructor(private readonly deps: ToolCallDeps) {
    this.args = new ToolArgs(deps.ajv);
  }

  /** Each tool offered now: its name, instance and the name its instance gives it (the status page lists them). */
  routes(): { name: string; instance: string; target: string }[] {
    return [...this.deps.tools()].map(([name, t]) => ({ name, instance: t.route.instance, target: t.route.target }));
  }

  /** The catalog changed: a tool of the same name may have another schema now. */
  forgetSchemas(): void {
    this.args.forget();
  }

  /**
   * A tool call; `meta` may carry an idempotency key (idempotency.ts): a memory write without an
   * id gets the key's id, and any call with a key is run at most once here while remembered.
   */
  async call(
    name: string,
    args: Record<string, unknown>,
    onProgress?: (update: ProgressUpdate) => void,
    signal?: AbortSignal,
    meta?: Record<string, unknown>,
    scope: CallScope = OPERATOR_SCOPE,
  ): Promise<CallToolResult> {
    if (scope.caller === OPERATOR && !this.gate.audit) return this.keyed(name, args, onProgress, signal, meta, scope);
    return this.gated(name, args, onProgress, signal, meta, scope);
  }

  /**
   * A call through the gate: a client may call exactly the tools its tools/list shows (the same
   * check), within its quota; every call that reaches an instance is audited.
   */
  private async gated(
    name: string,
    args: Record<string, unknown>,
    onProgress: ((update: ProgressUpdate) => void) | undefined,
    signal: AbortSignal | undefined,
    meta: Record<string, unknown> | undefined,
    scope: CallScope,
  ): Promise<CallToolResult> {
    const { caller } = scope;
    if (!this.deps.live() && !this.deps.tools().has(name)) await this.deps.booted(signal);
    const entry = this.deps.tools().get(name);
    // A tool its pins withhold is answered as such to a client whose policy names it (as to the
    // operator), reaching no instance, so no quota or audit; to others it is a name nothing has.
    const held = entry ? undefined : this.deps.withheld().get(name);
    const [instance, target] = entry
      ? [entry.route.instance, entry.route.target]
      : [held?.data.instance, held?.data.tool];
    if (caller.policy && (!(entry || held) || !caller.policy.seesTool(String(instance), String(target))))
      throw this.gate.refuse(caller, `tool "${clip(name)}"`);
    if (!entry) return this.keyed(name, args, onProgress, signal, meta, scope);
    const admitted = this.gate.admit(caller);
    const release = typeof admitted === "function" ? admitted : await admitted;
    const started = performance.now();
    let result: CallToolResult | undefined;
    let failed = "PB_ERR_INTERNAL";
    try {
      result = await this.keyed(name, args, onProgress, signal, meta, scope);
      return result;
    } catch (err) {
      failed = outcomeOfError(err);
      throw err;
    } finally {
      release();
      if (this.gate.audit && entry) {
        const key = idempotencyKeyOf(meta);
        this.gate.audit({
          time: new Date().toISOString(),
          client: caller.id,
          session: scope.session,
          instance: entry.route.instance,
          kind: "tool",
          name,
          outcome: result ? outcomeOf(result) : failed,
          durationMs: roundMs(performance.now() - started),
          bytesIn: jsonBytes(args),
          bytesOut: result ? jsonBytes(result) : 0,
          idempotencyKey: typeof key === "string" ? key : null,
        });
      }
    }
  }

  /** The call with its idempotency key honoured, keys kept apart per caller (one client cannot replay another's). */
  private async keyed(
    name: string,
    args: Record<string, unknown>,
    onProgress: ((update: ProgressUpdate) => void) | undefined,
    signal: AbortSignal | undefined,
    meta: Record<string, unknown> | undefined,
    scope: CallScope,
  ): Promise<CallToolResult> {
    const key = idempotencyKeyOf(meta);
    if (key === null) return this.run(name, args, onProgress, signal, meta, scope.caller.id);
    if (typeof key !== "string")
      return toolError(
        pbError("PB_ERR_CONTRACT_ARGS", `tools/call "${clip(name)}": ${key.invalid}.`, { tool: clip(name) }),
      );
    if (!this.deps.live() && !this.deps.tools().has(name)) await this.deps.booted(signal);
    const entry = this.deps.tools().get(name);
    const own = scope.caller === OPERATOR ? key : `${scope.caller.id}:${key}`;
    if (entry && entry.kind === "memory-store" && entry.route.target === "write" && args.id === undefined)
      args = { ...args, id: derivedRecordId(entry.route.instance, own) };
    const step = this.idempotency.begin(
      name,
      scope.caller === OPERATOR ? key : `${scope.caller.binding}\0${key}`,
      args,
    );
    if (step.kind === "again") {
      this.observer?.idempotentReplay(entry ? name : "unknown");
      return step.answer;
    }
    if (step.kind === "conflict") {
      return toolError(
        pbError(
          "PB_ERR_GATEWAY_IDEMPOTENCY_CONFLICT",
          `tools/call "${clip(name)}": the idempotency key was used before with other arguments; nothing was run.`,
          { tool: clip(name) },
        ),
      );
    }
    return step.settle(this.run(name, args, onProgress, signal, meta, scope.caller.id));
  }

  private async run(
    name: string,
    args: Record<string, unknown>,
    onProgress?: (update: ProgressUpdate) => void,
    signal?: AbortSignal,
    meta?: Record<string, unknown>,
    client = OPERATOR.id,
  ): Promise<CallToolResult> {
    if (!this.observer && !this.tracer) return this.runCall(name, args, onProgress, signal);
    const span = this.tracer?.start(name, meta);
    const started = performance.now();
    const before = this.deps.tools().get(name)?.route;
    let result: CallToolResult;
    try {
      result = await this.runCall(name, args, onProgress, signal, span);
    } catch (err) {
      span?.end(before?.instance ?? "none", "PB_ERR_INTERNAL");
      throw err;
    }
    const route = before ?? this.deps.tools().get(name)?.route;
    const outcome = outcomeOf(result);
    const held = route ? undefined : this.deps.withheld().get(name); // known, by name and instance
    const instance = route?.instance ?? (held ? String(held.data.instance) : "none");
    this.observer?.toolCall(
      instance,
      route || held ? name : "unknown",
      outcome,
      (performance.now() - started) / 1000,
      client,
    );
    span?.end(instance, outcome);
    return result;
  }

  private async runCall(
    name: string,
    args: Record<string, unknown>,
    onProgress?: (update: ProgressUpdate) => void,
    signal?: AbortSignal,
    span?: CallSpan,
  ): Promise<CallToolResult> {
    // A call made from the cached list waits for the boot (unless its instance is ready), then takes the live route.
    if (!this.deps.live() && !this.deps.tools().has(name)) await this.deps.booted(signal);
    if (signal?.aborted)
      return toolError(
        pbError(
          "PB_ERR_CALL_CANCELLED",
          `The client withdrew its call of "${clip(name)}" before the instances had booted.`,
          { tool: clip(name) },
        ),
      );
    let entry = this.deps.tools().get(name);
    // Its instance announced a change not checked yet: the call waits for the check, then takes its outcome.
    const fresh = entry ? this.deps.fresh(entry.route.instance, signal) : null;
    if (fresh) {
      await fresh;
      entry = this.deps.tools().get(name);
    }
    if (!entry) {
      const held = this.deps.withheld().get(name);
      if (held) return toolError(held);
      return toolError(
        pbError(
          "PB_ERR_GATEWAY_TOOL_UNKNOWN",
          `No tool "${clip(name)}" on this gateway (its instance may be unhealthy or not exposed); list the tools again.`,
          { tool: clip(name) },
        ),
      );
    }
    const { route } = entry;
    const invalid = this.args.check(entry, args);
    if (invalid) return toolError(invalid);
    const started = performance.now();
    try {
      // Traced: the host call gets a span of its own, whose context crosses to the worker (tracing.ts).
      const result = await (span
        ? span.around(route.instance, route.target, (trace) => this.hostCall(entry, args, onProgress, signal, trace))
        : this.hostCall(entry, args, onProgress, signal));
      this.stats.record(route.instance, performance.now() - started, true);
      // An MCP tool result passes through unchanged; anything else (another kind's return value,
      // or an mcp plugin that answers plain JSON) becomes its JSON as text.
      return entry.kind === "mcp" && isToolResult(result)
        ? result
        : { content: [{ type: "text", text: JSON.stringify(result ?? null) }] };
    } catch (err) {
      this.stats.record(route.instance, performance.now() - started, false);
      const wire = toWire(err);
      // The server's own error result passes through as it sent it.
      if (wire.code === "PB_ERR_TOOL_ERROR" && wire.data.result && typeof wire.data.result === "object")
        return wire.data.result as CallToolResult;
      return toolError(err);
    }
  }

  private hostCall(
    { kind, route }: CatalogTool,
    args: Record<string, unknown>,
    onProgress?: (update: ProgressUpdate) => void,
    signal?: AbortSignal,
    trace?: CallTrace,
  ): Promise<unknown> {
    const opts = { onProgress, signal, trace };
    return kind === "mcp"
      ? this.deps.host.call(route.instance, "call", [route.target, args], opts)
      : this.deps.host.call(route.instance, route.target, toPositional(kind, route.target, args), opts);
  }
}

const OPERATOR_SCOPE: CallScope = Object.freeze({ caller: OPERATOR, session: null });
