/**
 * The rules of the five connector contracts that a schema cannot say, enforced at the host so
 * no plugin has to get them right (seeds 000 and 001): declared memory modes and filter keys,
 * the curated-field duplication ban, `limit`, a consistent embedding dimension, correlation ids
 * echoed, receipts that do not predate their dispatch, names that may become paths. guard.ts
 * runs these after the contract schemas passed, so every value here already has its shape.
 */
import { pbError, type PatchbayError } from "../errors.js";
import { CORE_QUERY_KEYS } from "../contract/manifest.js";
import { portableNameProblem } from "../contract/names.js";
import { curatedFieldInMetadata } from "../contract/memory.js";
import type { ContractTarget } from "../contract/target.js";

export type { ContractTarget };

type Rec = Record<string, unknown>;

/** Before the schema check: a correlation id given only in payload.meta also counts as the option. */
export function prefillCorrelation(method: string, args: unknown[]): unknown[] {
  if (method !== "request_response") return args;
  const [agent, payload, opts] = args as [unknown, Rec | undefined, Rec | undefined];
  const fromMeta = (payload?.meta as Rec | undefined)?.correlation_id;
  if (fromMeta === undefined || (opts && opts.correlation_id !== undefined)) return args;
  return [agent, payload, { ...(opts ?? {}), correlation_id: fromMeta }];
}

/** After the schema check: the kind's argument rules. Returns the arguments to send. */
export function prepareArgs(target: ContractTarget, method: string, args: unknown[]): unknown[] {
  if (target.kind === "memory-store" && method === "query") checkFilters(target, args[0] as Rec);
  if (target.kind === "agent" && method === "request_response") return withCorrelation(target, args);
  return args;
}

function checkFilters(target: ContractTarget, filters: Rec): void {
  const { instance } = target;
  const modes = target.modes ?? ["fts"];
  const mode = filters.mode as string;
  if (!modes.includes(mode)) {
    throw pbError(
      "PB_ERR_MODE_UNDECLARED",
      `${instance}: query mode "${mode}" is not one this store declares (modes: ${modes.join(", ")}).`,
      { instance, mode, modes: [...modes] },
    );
  }
  const declared = target.filters ?? [];
  const unknown = Object.keys(filters).filter(
    (k) => filters[k] !== undefined && !CORE_QUERY_KEYS.includes(k) && !declared.includes(k),
  );
  if (unknown.length > 0) {
    throw pbError(
      "PB_ERR_FILTER_UNDECLARED",
      `${instance}: query filter${unknown.length > 1 ? "s" : ""} ${unknown.map((k) => `"${k}"`).join(", ")} ${unknown.length > 1 ? "are" : "is"} not declared by this store (filters: ${declared.join(", ") || "none"}); refusing rather than silently dropping ${unknown.length > 1 ? "them" : "it"}.`,
      {
        instance,
        filters: unknown,
        declared: [...declared],
      },
    );
  }
}

/** The option and payload.meta carry one correlation id, so the receiver can echo it whichever it reads. */
function withCorrelation(target: ContractTarget, args: unknown[]): unknown[] {
  const [agent, payload, opts] = args as [string, Rec, Rec];
  const meta = payload.meta as Rec;
  const id = opts.correlation_id as string;
  if (meta.correlation_id !== undefined && meta.correlation_id !== id) {
    throw pbError(
      "PB_ERR_CONTRACT_ARGS",
      `${target.instance}.request_response(): payload.meta.correlation_id "${String(meta.correlation_id)}" differs from opts.correlation_id "${id}"; give one.`,
      { instance: target.instance, method: "request_response" },
    );
  }
  return [agent, { ...payload, meta: { ...meta, correlation_id: id } }, opts];
}

/**
 * The deadline a contract argument asks for (run's and request_response's `timeout_ms`), so the
 * host bounds the call by what the caller said, not only by the instance's default.
 */
export function contractTimeout(target: ContractTarget, method: string, args: unknown[]): number | undefined {
  const opts =
    target.kind === "local-model" && method === "run"
      ? args[1]
      : target.kind === "agent" && method === "request_response"
        ? args[2]
        : undefined;
  const ms = (opts as Rec | undefined)?.timeout_ms;
  return typeof ms === "number" ? ms : undefined;
}

/** After the result schema passed: the kind's result rules. Throws PB_ERR_CONTRACT_VIOLATION. */
export function checkContractResult(target: ContractTarget, method: string, args: unknown[], result: unknown): void {
  const { instance, kind } = target;
  const fail = (detail: string, extra: Rec = {}) => violation(instance, method, detail, extra);
  switch (`${kind}.${method}`) {
    case "memory-store.query":
    case "memory-store.get":
      return checkMemories(target, method, args, result);
    case "memory-store.write": {
      const given = (args[0] as Rec).id;
      if (given !== undefined && (result as Rec).id !== given)
        throw fail(`wrote id "${String(given)}" but answered id "${String((result as Rec).id)}"`);
      return;
    }
    case "local-model.embed":
      return checkEmbeddings(target, args[0] as string[], result as number[][]);
    case "mcp.list_tools":
      return unique(
        fail,
        (result as Rec[]).map((t) => t.name as string),
        "tool name",
      );
    case "agent.list_agents":
      return unique(
        fail,
        (result as Rec[]).map((a) => a.agent_id as string),
        "agent_id",
      );
    case "agent.deliver": {
      const sentAt = ((args[1] as Rec).meta as Rec).sent_at as number;
      const deliveredAt = (result as Rec).delivered_at as number;
      // Same machine, same clock: a receipt older than its dispatch is made up.
      if (deliveredAt < sentAt)
        throw fail(`delivered_at ${deliveredAt} is before the host's sent_at ${sentAt}`, {
          sent_at: sentAt,
          delivered_at: deliveredAt,
        });
      return;
    }
    case "agent.request_response": {
      const expected = (args[2] as Rec).correlation_id;
      const got = (result as Rec).correlation_id;
      if (got !== expected)
        throw fail(
          `answered correlation_id "${String(got)}" to a request with correlation_id "${String(expected)}" (it must echo it)`,
          { expected, got },
        );
      return;
    }
    case "skill-store.get": {
      const name = (result as Rec | null)?.name;
      if (result !== null && name !== args[0])
        throw fail(`was asked for skill "${String(args[0])}" and answered skill "${String(name)}"`);
      return;
    }
    case "skill-store.list": {
      const names = result as string[];
      const bad = names.find((n) => portableNameProblem(n) !== null);
      if (bad !== undefined)
        throw fail(
          `listed ${JSON.stringify(bad)}, a name that ${portableNameProblem(bad)} (a caller could not get, write or delete it)`,
        );
      return unique(fail, names, "skill name");
    }
  }
}

function checkMemories(target: ContractTarget, method: string, args: unknown[], result: unknown): void {
  const { instance } = target;
  const records = method === "query" ? (result as Rec[]) : result ? [result as Rec] : [];
  if (method === "query") {
    const limit = (args[0] as { limit: number }).limit;
    if (records.length > limit)
      throw violation(instance, method, `returned ${records.length} records for limit ${limit}`, {
        limit,
        returned: records.length,
      });
  } else if (records.length === 1 && records[0].id !== args[0]) {
    throw violation(
      instance,
      method,
      `was asked for id "${String(args[0])}" and answered id "${String(records[0].id)}"`,
    );
  }
  for (const record of records) {
    const dup = curatedFieldInMetadata(record.metadata as Rec | undefined);
    if (dup)
      throw violation(
        instance,
        method,
        `record "${String(record.id)}" duplicates the curated field "${dup}" into metadata (curated fields belong at the top level only)`,
        { field: dup },
      );
  }
}

function checkEmbeddings(target: ContractTarget, texts: string[], vectors: number[][]): void {
  const fail = (detail: string, extra: Rec = {}) => violation(target.instance, "embed", detail, extra);
  if (vectors.length !== texts.length) throw fail(`returned ${vectors.length} vectors for ${texts.length} texts`);
  const dim = target.embedDim ?? vectors[0].length;
  const odd = vectors.findIndex((v) => v.length !== dim);
  if (odd !== -1) {
    const why = target.embedDim
      ? `this instance's earlier embeddings have dimension ${dim}`
      : `vector 0 has dimension ${dim}`;
    throw fail(`vector ${odd} has dimension ${vectors[odd].length}, but ${why}`, {
      dimension: dim,
      got: vectors[odd].length,
    });
  }
  target.embedDim = dim;
}

function unique(fail: (detail: string) => PatchbayError, values: string[], what: string): void {
  const dup = values.find((v, i) => values.indexOf(v) !== i);
  if (dup !== undefined) throw fail(`lists the ${what} "${dup}" twice`);
}

export function violation(instance: string, method: string, detail: string, extra: Rec = {}): PatchbayError {
  return pbError("PB_ERR_CONTRACT_VIOLATION", `${instance}.${method}() broke its contract: ${detail}.`, {
    instance,
    method,
    ...extra,
  });
}
