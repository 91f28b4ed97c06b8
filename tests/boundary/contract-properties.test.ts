/**
 * The hand-written checks held to the one declaration by a property test: over many random
 * argument lists (a seeded generator, so a failure replays), the guard's fast checks accept a list
 * only when the method's zod schema accepts it too and copies it unchanged; and the wire check of
 * worker → host messages accepts exactly the messages a zod declaration of their shape accepts.
 * The seed is printed on failure; set PATCHBAY_PROPERTY_SEED to replay one.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { METHODS, type Kind } from "../../src/contract/kinds.js";
import { methodSchema } from "../../src/contract/schemas.js";
import { checkWorkerMessage } from "../../src/contract/rpc-check.js";
import { MAX_RESOURCE_URI_CHARS } from "../../src/contract/rpc.js";
import { fastArgsOk } from "../../src/guard/fast-checks.js";
import { seededRandom as rng } from "../helpers.js";

const SEED = Number(process.env.PATCHBAY_PROPERTY_SEED ?? 20_261_202);
const RUNS = 800;

class Thing {
  a = 1;
}

function generator(seed: number) {
  const next = rng(seed);
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)];
  const strings = ["", "a", "echo", "x".repeat(300), "ü", "__proto__", "constructor"];
  const value = (depth: number): unknown => {
    switch (int(depth > 2 ? 7 : 13)) {
      case 0:
        return pick(strings);
      case 1:
        return int(2) ? int(100) : pick([-1, 0.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 60]);
      case 2:
        return int(2) === 1;
      case 3:
        return null;
      case 4:
        return undefined;
      case 5:
        return BigInt(int(10));
      case 6:
        return pick([new Date(0), new Map(), new Thing(), () => 1]);
      case 7:
        return Array.from({ length: int(4) }, () => value(depth + 1));
      case 8:
        return Object.create(null);
      case 9:
        return { [Symbol("s")]: 1, a: 1 };
      case 10:
        return JSON.parse('{"__proto__": {"x": 1}, "a": 1}');
      case 11:
        return { constructor: int(2) ? 1 : Thing };
      default:
        return record(depth + 1);
    }
  };
  const record = (depth: number): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (let i = int(4); i > 0; i--) out[pick(["a", "b", "text", "n"])] = value(depth);
    return out;
  };
  /** Half the lists look like a well-formed call (a tool name, records), half are anything. */
  const args = (): unknown[] => {
    if (int(2)) return Array.from({ length: int(5) }, () => value(0));
    const list: unknown[] = [pick(["echo", "", "t"]), record(0)];
    for (let i = int(3); i > 0; i--) list.push(int(3) ? record(0) : value(0));
    return list;
  };
  return { int, pick, value, record, args };
}

const hotMethods = (Object.keys(METHODS) as Kind[]).flatMap((kind) =>
  [...METHODS[kind].required, ...METHODS[kind].optional].map((method) => [kind, method] as const),
);

describe("the guard's fast checks never accept more than the schema", () => {
  it(`holds over ${RUNS} random argument lists per method (seed ${SEED})`, () => {
    const gen = generator(SEED);
    let fastAccepted = 0;
    let schemaOnly = 0;
    for (const [kind, method] of hotMethods) {
      const schema = methodSchema(kind, method);
      if (!schema) continue;
      for (let i = 0; i < RUNS; i++) {
        const args = gen.args();
        if (!fastArgsOk(kind, method, args)) {
          if (schema.args.safeParse(args).success) schemaOnly++;
          continue;
        }
        fastAccepted++;
        const parsed = schema.args.safeParse(args);
        expect(
          parsed.success,
          `${kind}.${method}: fast check accepted what the schema refuses (seed ${SEED}, run ${i})`,
        ).toBe(true);
        expect(
          parsed.data,
          `${kind}.${method}: the schema's copy differs from what the fast check passes on (seed ${SEED}, run ${i})`,
        ).toEqual(args);
      }
    }
    // Not vacuous: both the fast path and the schema's own path were taken.
    expect(fastAccepted).toBeGreaterThan(100);
    expect(schemaOnly).toBeGreaterThan(0);
  });
});

/** The worker → host messages, declared in zod: what contract/rpc-check.ts must accept, exactly. */
const id = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
const strings = z.array(z.string());
const record = z.custom<Record<string, unknown>>((v) => typeof v === "object" && v !== null && !Array.isArray(v));
const wireError = z.custom((v) => {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  const e = v as Record<string, unknown>;
  return (
    typeof e.code === "string" &&
    typeof e.message === "string" &&
    (e.hint === undefined || typeof e.hint === "string") &&
    (e.data === undefined || record.safeParse(e.data).success)
  );
});
const WorkerMessage = z.union([
  z.looseObject({ t: z.literal("result"), id, ok: z.boolean() }),
  z.looseObject({
    t: z.literal("log"),
    level: z.enum(["trace", "debug", "info", "warn", "error", "fatal"]),
    msg: z.string(),
    data: record.optional(),
  }),
  z.looseObject({ t: z.literal("secrets"), secrets: strings }),
  z.looseObject({ t: z.literal("ready"), secrets: strings, methods: strings }),
  z.looseObject({ t: z.literal("init-failed"), secrets: strings, error: wireError }),
  z.looseObject({ t: z.literal("grant-call"), id, target: z.string(), method: z.string(), args: z.array(z.unknown()) }),
  z.looseObject({ t: z.literal("closed") }),
  z.looseObject({
    t: z.literal("progress"),
    id,
    progress: z.number(),
    total: z.number().optional(),
    message: z.string().optional(),
  }),
  z.looseObject({ t: z.literal("resource-updated"), uri: z.string().min(1).max(MAX_RESOURCE_URI_CHARS) }),
  z.looseObject({ t: z.literal("list-changed"), list: z.enum(["tools", "prompts", "resources"]) }),
]);
const KINDS = [
  "result",
  "log",
  "secrets",
  "ready",
  "init-failed",
  "grant-call",
  "closed",
  "progress",
  "resource-updated",
  "list-changed",
] as const;

describe("the wire check of worker → host messages", () => {
  it(`accepts exactly what the declaration accepts over ${RUNS * 5} random messages (seed ${SEED})`, () => {
    const gen = generator(SEED + 1);
    const field = () =>
      gen.int(3)
        ? gen.pick([1, 2, "x", true, ["a"], [], { code: "E", message: "m" }, "warn", 0, -1, "tools", "prompts"])
        : gen.value(1);
    let accepted = 0;
    for (let i = 0; i < RUNS * 5; i++) {
      const t = gen.pick(KINDS);
      const msg: Record<string, unknown> = { t };
      for (const key of [
        "id",
        "ok",
        "level",
        "msg",
        "data",
        "secrets",
        "methods",
        "error",
        "target",
        "method",
        "args",
        "progress",
        "total",
        "message",
        "uri",
        "list",
      ]) {
        if (gen.int(2)) msg[key] = field();
      }
      const expected = WorkerMessage.safeParse(msg).success;
      const got = checkWorkerMessage(msg).ok;
      expect(
        got,
        `${JSON.stringify(msg, (_k, v) => (typeof v === "bigint" ? `${v}n` : v))} (seed ${SEED + 1}, run ${i})`,
      ).toBe(expected);
      if (got) accepted++;
    }
    expect(accepted).toBeGreaterThan(50);
  });
});
