/**
 * Helpers for the metrics tests: a parser of the Prometheus text exposition (samples only; the
 * format's grammar, not prom-client's output, is what it reads), and a scrape through the real HTTP.
 */
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { tempDir } from "../helpers.js";

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parseExposition(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const m = SAMPLE.exec(line);
    if (!m) throw new Error(`not an exposition line: ${line.slice(0, 200)}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? "").matchAll(LABEL))
      labels[l[1]] = l[2].replace(/\\(["\\n])/g, (_, c: string) => (c === "n" ? "\n" : c));
    out.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return out;
}

export function sum(samples: Sample[], name: string, where: Record<string, string> = {}): number {
  return samples
    .filter((s) => s.name === name && Object.entries(where).every(([k, v]) => s.labels[k] === v))
    .reduce((a, s) => a + s.value, 0);
}

export async function scrape(url: string, token?: string): Promise<Sample[]> {
  const res = await fetch(url, token ? { headers: { authorization: `Bearer ${token}` } } : {});
  if (res.status !== 200) throw new Error(`GET ${url}: ${res.status} ${await res.text()}`);
  return parseExposition(await res.text());
}

/** promtool from Debian's prometheus package, or null (the caller skips with a printed reason). */
export function promtool(): string | null {
  const bin = process.env.PATCHBAY_PROMTOOL ?? "promtool";
  const r = spawnSync(bin, ["--version"], { encoding: "utf8" });
  return r.status === 0 ? bin : null;
}

/** `promtool check metrics` on an exposition text: its complaints, or "" when it has none. */
export function promtoolCheck(bin: string, text: string): { status: number | null; output: string } {
  const file = path.join(tempDir("pb-promtool-"), "metrics.txt");
  writeFileSync(file, text);
  const r = spawnSync("sh", ["-c", `"$0" check metrics < "$1"`, bin, file], { encoding: "utf8" });
  return { status: r.status, output: `${r.stdout}${r.stderr}`.trim() };
}
