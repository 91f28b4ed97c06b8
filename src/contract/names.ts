/**
 * Names that may become file or folder names: plugin names, instance names, skill names,
 * record ids a store turns into paths. Validated at the host so no plugin has to get it right.
 */

const PORTABLE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;
/** Device names Windows refuses as file names, whatever the extension. */
const RESERVED = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?$/i;

/** Returns why `name` is not a portable name, or null when it is fine. */
export function portableNameProblem(name: unknown): string | null {
  if (typeof name !== "string" || name.length === 0) return "must be a non-empty string";
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name)) return "must not contain control characters";
  if (name.includes("/") || name.includes("\\")) return "must not contain path separators";
  if (name === "." || name === ".." || name.includes("..")) return "must not contain '..'";
  if (!PORTABLE.test(name))
    return "must start with a letter or digit and use only letters, digits, '.', '_' and '-' (at most 200)";
  if (name.endsWith(".")) return "must not end with '.'";
  if (RESERVED.test(name)) return "is a reserved device name";
  return null;
}
