/**
 * Holds the TypeScript contract (types.ts) to its one declaration, the zod schemas (schemas.ts),
 * at compile time: for every method of every kind, a call the declared TypeScript arguments
 * allow has the argument schema's shape, and a result the result schema lets through is a value
 * of the declared result type. Editing one side without the other fails `npm run typecheck` here, naming
 * the kind and method. Types only: this module emits nothing at run time.
 */
import type { z } from "zod";
import type { CONTRACT_SCHEMAS } from "./schemas.js";
import type { CuratedMemoryField } from "./memory.js";
import type { KindContracts, PortableMemory } from "./types.js";

type Schemas = typeof CONTRACT_SCHEMAS;
type Fn = (...args: never[]) => unknown;

/** `A` is assignable to `B` (compared without index signatures: an interface has none, a loose schema adds one). */
type Fits<A, B> = [StripIndex<A>] extends [StripIndex<B>] ? true : false;

/** A method typed `Promise<void>` may answer undefined or null (MCP's empty result is `{}` → null over the wire). */
// biome-ignore lint/suspicious/noConfusingVoidType: matching the contract types' own `Promise<void>`
type Nothing<T> = [T] extends [void] ? undefined | null : T;

type StripIndex<T> = T extends readonly unknown[]
  ? { [I in keyof T]: StripIndex<T[I]> }
  : T extends object
    ? { [K in keyof T as string extends K ? never : K]: StripIndex<T[K]> }
    : T;

/**
 * Per kind and method the contract types declare, the two directions that matter: any call the
 * TypeScript arguments allow has the argument schema's shape, and any result the result schema
 * lets through is a value of the declared result type.
 */
type MethodDrift<K extends keyof Schemas> = {
  [M in keyof Schemas[K] & keyof KindContracts[K]]: NonNullable<KindContracts[K][M]> extends Fn
    ? Schemas[K][M] extends { args: z.ZodType; result: z.ZodType }
      ? {
          args: Fits<Parameters<NonNullable<KindContracts[K][M]>>, z.input<Schemas[K][M]["args"]>>;
          result: Fits<
            z.output<Schemas[K][M]["result"]>,
            Nothing<Awaited<ReturnType<NonNullable<KindContracts[K][M]>>>>
          >;
        }
      : "no schema"
    : "not a method";
};

/** Each entry must be `{ args: true; result: true }`; a `false` names the kind and method that drifted. */
type AllAgree<T> = { [M in keyof T]: T[M] extends { args: true; result: true } ? true : T[M] };

export type Drift = { [K in Exclude<keyof Schemas, "adapter">]: AllAgree<MethodDrift<K>> };

type Expect<T extends { [K in keyof T]: { [M in keyof T[K]]: true } }> = T;
export type ContractAgrees = Expect<Drift>;

/** The curated-field list (memory.ts) names exactly PortableMemory's fields beyond the core five. */
type CuratedAgrees = [Exclude<keyof PortableMemory, "id" | "summary" | "detail" | "score" | "metadata">] extends [
  CuratedMemoryField,
]
  ? [CuratedMemoryField] extends [Exclude<keyof PortableMemory, "id" | "summary" | "detail" | "score" | "metadata">]
    ? true
    : false
  : false;
export type CuratedListAgrees = Expect<{ memory: { curated: CuratedAgrees } }>;
