/**
 * Checking a documented `patchbay ...` line against the CLI for real: the line is parsed by the
 * CLI's own parser (src/cli/args.ts), which refuses a flag the command does not declare and a
 * flag missing its value, exactly as the bin does before it runs anything.
 */
import { parseCommandLine } from "../../src/cli/args.js";
import { isPatchbayError } from "../../src/errors.js";

/** Splits a shell line into words, honouring single and double quotes. */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  for (const m of line.matchAll(/'([^']*)'|"((?:[^"\\]|\\.)*)"|(\S+)/g)) words.push(m[1] ?? m[2] ?? m[3]);
  return words;
}

/** Every `patchbay ...` command in a Markdown text: lines of code blocks and inline code spans. */
export function commandsIn(markdown: string): string[] {
  const found: string[] = [];
  const blocks = [...markdown.matchAll(/^```[a-z]*\n([\s\S]*?)^```/gm)].map((m) => m[1]);
  for (const block of blocks) {
    for (const raw of block.split("\n")) {
      const line = raw
        .replace(/^\$\s+/, "")
        .replace(/\s+#\s.*$/, "")
        .trim();
      if (/^(npx )?patchbay /.test(line)) found.push(line);
    }
  }
  const prose = markdown.replace(/^```[a-z]*\n[\s\S]*?^```/gm, "");
  for (const m of prose.matchAll(/`((?:npx )?patchbay [^`]+)`/g)) found.push(m[1]);
  return found;
}

/**
 * Why `line` is not a real command line, or null. A synopsis's `install|uninstall` is checked as
 * each alternative; `[--dir D]` is the flag with its placeholder value; `<kind>` a positional.
 */
export function problemWith(line: string): string | null {
  const alternatives = /(?<=\s)([a-z-]+(?:\|[a-z-]+)+)(?=\s|$)/.exec(line);
  if (alternatives) {
    for (const alt of alternatives[1].split("|")) {
      const problem = problemWith(line.replace(alternatives[1], alt));
      if (problem) return problem;
    }
    return null;
  }
  // A synopsis's `[--mcp | --http ...]` lists alternatives of flags: each is a flag of its own.
  const words = shellWords(line.replace(/\[([^\]]+)\]/g, "$1").replace(/\s\|\s/g, " ")).filter((w) => w !== "...");
  if (words[0] === "npx") words.shift();
  if (words.shift() !== "patchbay") return "does not start with patchbay";
  let parsed;
  try {
    parsed = parseCommandLine(words);
  } catch (err) {
    return isPatchbayError(err) ? err.message : String(err);
  }
  if (!parsed.decl) {
    if (parsed.words.length === 0) return parsed.flags.help || parsed.flags.version ? null : "names no command";
    return `no command "${parsed.words.join(" ")}"`;
  }
  return null;
}
