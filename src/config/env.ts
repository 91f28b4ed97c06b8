/**
 * `${VAR}` interpolation over a parsed JSON value. Pure: the environment is an argument and
 * nothing is thrown; the caller decides how to report what comes back.
 *
 * Syntax, in every string value (object values and array items at any depth, never keys):
 *   ${VAR}           the variable's value; missing when unset (an empty value is a value)
 *   ${VAR:-default}  the value when set and non-empty, else `default` (literal, may be empty,
 *                    any character except `}`)
 *   $${              a literal `${`
 * Every missing variable in the document is collected, so the user fixes them in one go.
 */
import { isPlainObject } from "./comments.js";
import { toPointer, type ConfigIssue } from "./issues.js";

export type Env = Readonly<Record<string, string | undefined>>;

export interface MissingVariable extends ConfigIssue {
  variable: string;
}

export interface EnvResolution {
  /** A copy of the input with every reference replaced (missing ones left as written). */
  value: unknown;
  /** Values that came from the environment (not from defaults): scrub them everywhere. */
  secrets: string[];
  missing: MissingVariable[];
  /** Syntax errors: an unterminated `${`, a bad variable name, an unknown operator. */
  malformed: ConfigIssue[];
}

/**
 * Keys that reach Object.prototype machinery when a plugin copies or merges its config.
 * JSON.parse makes `__proto__` an own data property, so Object.keys sees it.
 */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"]);

/** Every forbidden key anywhere in `value`, config objects included. */
export function findForbiddenKeys(value: unknown): ConfigIssue[] {
  const found: ConfigIssue[] = [];
  const walk = (node: unknown, path: string[]): void => {
    if (Array.isArray(node))
      node.forEach((item, i) => {
        walk(item, [...path, String(i)]);
      });
    else if (isPlainObject(node)) {
      for (const key of Object.keys(node)) {
        if (FORBIDDEN_KEYS.has(key))
          found.push({ pointer: toPointer([...path, key]), message: `the key "${key}" is not allowed` });
        else walk(node[key], [...path, key]);
      }
    }
  };
  walk(value, []);
  return found;
}

export function resolveEnv(value: unknown, env: Env): EnvResolution {
  const secrets = new Set<string>();
  const missing: MissingVariable[] = [];
  const malformed: ConfigIssue[] = [];
  const walk = (node: unknown, path: string[]): unknown => {
    if (typeof node === "string") {
      const pointer = toPointer(path);
      const r = interpolate(node, env);
      for (const s of r.secrets) secrets.add(s);
      for (const variable of r.missing) missing.push({ pointer, variable, message: `\${${variable}} is not set` });
      for (const message of r.malformed) malformed.push({ pointer, message });
      return r.text;
    }
    if (Array.isArray(node)) return node.map((item, i) => walk(item, [...path, String(i)]));
    if (isPlainObject(node)) {
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(node)) {
        // defineProperty: a "__proto__" key (if a caller skipped findForbiddenKeys) stays data.
        Object.defineProperty(out, key, {
          value: walk(node[key], [...path, key]),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return out;
    }
    return node;
  };
  return { value: walk(value, []), secrets: [...secrets], missing, malformed };
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export interface Interpolated {
  text: string;
  secrets: string[];
  missing: string[];
  malformed: string[];
}

/** Interpolate one string. Exported for tests and for callers with a single value. */
export function interpolate(input: string, env: Env): Interpolated {
  const out: Interpolated = { text: "", secrets: [], missing: [], malformed: [] };
  let i = 0;
  while (i < input.length) {
    const dollar = input.indexOf("$", i);
    if (dollar === -1) break;
    out.text += input.slice(i, dollar);
    if (input.startsWith("$${", dollar)) {
      out.text += "${";
      i = dollar + 3;
      continue;
    }
    if (!input.startsWith("${", dollar)) {
      out.text += "$";
      i = dollar + 1;
      continue;
    }
    const close = input.indexOf("}", dollar + 2);
    if (close === -1) {
      out.malformed.push(`unterminated "\${" at character ${dollar + 1} (write "$\${" for a literal "\${")`);
      out.text += input.slice(dollar);
      i = input.length;
      continue;
    }
    const body = input.slice(dollar + 2, close);
    out.text += substitute(body, env, out) ?? input.slice(dollar, close + 1);
    i = close + 1;
  }
  out.text += input.slice(i);
  return out;
}

/** The replacement for `${body}`, or null (leave as written) when missing or malformed. */
function substitute(body: string, env: Env, out: Interpolated): string | null {
  const op = body.indexOf(":-");
  const name = op === -1 ? body : body.slice(0, op);
  if (!NAME.test(name)) {
    // Quoting the reference is safe: it is the file's own text, never a resolved value.
    out.malformed.push(
      name.length === 0 || /^[A-Za-z0-9_]*$/.test(name)
        ? `"\${${body}}" is not a valid reference: variable names are letters, digits and _, not starting with a digit`
        : `"\${${body}}" is not a valid reference: use \${NAME} or \${NAME:-default}`,
    );
    return null;
  }
  const value = env[name];
  if (op === -1) {
    if (value === undefined) {
      out.missing.push(name);
      return null;
    }
    if (value !== "") out.secrets.push(value);
    return value;
  }
  if (value !== undefined && value !== "") {
    out.secrets.push(value);
    return value;
  }
  return body.slice(op + 2);
}
