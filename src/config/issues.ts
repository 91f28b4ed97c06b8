/**
 * Config problems as {pointer, message}: zod issues converted to RFC 6901 pointers into the
 * user's file, and the PatchbayError that lists them all, one per line.
 *
 * Secrets: messages here never quote a value from the file (zod 4's default messages name
 * types and expectations, not inputs); load.ts additionally scrubs every resolved ${VAR} value.
 */
import type { z } from "zod";
import { pbError, type ErrorCode, type PatchbayError } from "../errors.js";
import { allowedKeysAt, MCP_ONLY_KEYS } from "./schema.js";
import { suggest } from "./suggest.js";

export interface ConfigIssue {
  /** RFC 6901 pointer into connectors.json; "" is the whole document. */
  pointer: string;
  message: string;
}

export function toPointer(path: readonly PropertyKey[]): string {
  return path.map((seg) => "/" + String(seg).replace(/~/g, "~0").replace(/\//g, "~1")).join("");
}

type Issue = z.core.$ZodIssue;

export function fromZodIssues(issues: readonly Issue[], base: readonly PropertyKey[] = []): ConfigIssue[] {
  return issues.flatMap((issue) => fromZodIssue(issue, [...base, ...issue.path]));
}

function fromZodIssue(issue: Issue, path: PropertyKey[]): ConfigIssue[] {
  switch (issue.code) {
    case "unrecognized_keys":
      return issue.keys.map((key) => ({ pointer: toPointer([...path, key]), message: unknownKeyMessage(path, key) }));
    case "invalid_key": {
      // A record key: the nested messages already say "instance name must ...".
      const messages = issue.issues.map((inner) => inner.message);
      return [{ pointer: toPointer(path), message: messages.join("; ") || "invalid key" }];
    }
    case "invalid_union":
      return fromUnion(issue, path);
    default:
      return [{ pointer: toPointer(path), message: issue.message }];
  }
}

function unknownKeyMessage(path: readonly PropertyKey[], key: string): string {
  const section = path.length === 2 ? String(path[0]) : null;
  if (section && section !== "mcpConnectors" && (MCP_ONLY_KEYS as readonly string[]).includes(key)) {
    return `"${key}" is only allowed on mcpConnectors instances, not in ${section}`;
  }
  const allowed = allowedKeysAt(path);
  const guess = allowed.length > 0 ? suggest(key, allowed) : null;
  return `unknown key "${key}"` + (guess ? ` (did you mean "${guess}"?)` : "");
}

/**
 * A section entry is `string | instance`. When the value has the type of one branch, that
 * branch's issues are the useful ones ("plugin: expected string"), not "expected string".
 */
function fromUnion(issue: Extract<Issue, { code: "invalid_union" }>, path: PropertyKey[]): ConfigIssue[] {
  const branches = issue.errors ?? [];
  const typeMatched = branches.filter(
    (errors) => !errors.some((e) => e.code === "invalid_type" && e.path.length === 0),
  );
  if (typeMatched.length === 1) return fromZodIssues(typeMatched[0], path);
  const expected = branches
    .flatMap((errors) => errors.filter((e) => e.code === "invalid_type" && e.path.length === 0))
    .map((e) => (e as { expected?: string }).expected)
    .filter((e): e is string => typeof e === "string");
  const described = expected.map((e) =>
    e === "string" ? "a string (an alias)" : e === "object" ? "an object (an instance)" : e,
  );
  return [
    { pointer: toPointer(path), message: described.length > 0 ? `expected ${described.join(" or ")}` : issue.message },
  ];
}

/** How a pointer reads in a message: the root has the empty pointer, which reads badly. */
function showPointer(pointer: string): string {
  return pointer === "" ? "(root)" : pointer;
}

function formatIssues(issues: readonly ConfigIssue[]): string {
  return issues.map((i) => `  ${showPointer(i.pointer)}: ${i.message}`).join("\n");
}

/** Where the problems are, for the first line of a message. */
function describeSource(file: string | null): string {
  return file ? file : "the config object";
}

/**
 * One error listing every issue. `scrub` removes resolved secret values from the text and the
 * data, so nothing that came from the environment can leak through a message.
 */
export function issuesError(
  code: ErrorCode,
  headline: string,
  issues: readonly ConfigIssue[],
  file: string | null,
  scrub: (text: string) => string = (t) => t,
  extra: Record<string, unknown> = {},
): PatchbayError {
  // Pointers are built from keys, which are never interpolated: only messages need scrubbing.
  const clean = issues.map((i) => ({ ...i, message: scrub(i.message) }));
  const count = clean.length === 1 ? "1 problem" : `${clean.length} problems`;
  const message = `${headline} in ${describeSource(file)} (${count}):\n${formatIssues(clean)}`;
  return pbError(code, message, { file, issues: clean, ...extra });
}
