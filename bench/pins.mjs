// Pinned definitions: hashing 100 instances × 500 tools (50,000 realistic tool definitions of about
// 0.5–2 KB, nested inputSchema properties each with a description), as the gateway does on each check.
// Goal: ≤ 50 ms for all 50,000. Also the hidden-text scan of the same definitions, reported without a goal.
// Definitions are built once, seeded, before timing; each round hashes all of them again (nothing is cached
// by the functions measured). Median of rounds after warm-up. CPU time is printed beside wall time: on this
// shared machine the wall figure moves with other processes' load, the CPU figure much less.
import * as crypto from "node:crypto";
import { canonicalJson, definitionHash, pinnedFields } from "../dist/gateway/pins/canonical.js";
import { findHiddenText } from "../dist/gateway/pins/hidden-text.js";
import { PinBook } from "../dist/gateway/pins/pin-book.js";
import { figure, median } from "./figures.mjs";

const INSTANCES = 100;
const TOOLS = 500;

/** A small seeded RNG (mulberry32), so every run hashes the same definitions. */
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  "the a file path read write list search query repository issue branch commit user name id limit " +
  "offset page results return returns optional required string number when if not found error " +
  "directory content encoding format json text markdown url request response timeout seconds"
).split(" ");

function sentence(rand, words) {
  const out = [];
  for (let i = 0; i < words; i++) out.push(WORDS[Math.floor(rand() * WORDS.length)]);
  return out.join(" ") + ".";
}

function property(rand, depth) {
  const r = rand();
  const p = { description: sentence(rand, 6 + Math.floor(rand() * 10)) };
  if (depth < 2 && r < 0.15) {
    p.type = "object";
    p.properties = {};
    for (let i = 0; i < 2 + Math.floor(rand() * 3); i++) p.properties[`field_${i}`] = property(rand, depth + 1);
  } else if (r < 0.3) {
    p.type = "string";
    p.enum = ["asc", "desc", "none"];
  } else if (r < 0.45) {
    p.type = "array";
    p.items = { type: "string" };
  } else if (r < 0.65) {
    p.type = "integer";
    p.minimum = 0;
    p.maximum = 1000;
  } else p.type = "string";
  return p;
}

function tool(rand, i) {
  const properties = {};
  const count = 2 + Math.floor(rand() * 7);
  for (let k = 0; k < count; k++) properties[`${WORDS[k + 3]}_${k}`] = property(rand, 0);
  return {
    name: `tool_${i}`,
    title: `Tool ${i}`,
    description: sentence(rand, 15 + Math.floor(rand() * 40)),
    inputSchema: {
      type: "object",
      properties,
      required: Object.keys(properties).slice(0, 2),
      additionalProperties: false,
      $schema: "http://json-schema.org/draft-07/schema#",
    },
    annotations: { readOnlyHint: rand() < 0.5, openWorldHint: false },
  };
}

const rand = rng(34);
const defs = [];
for (let i = 0; i < INSTANCES * TOOLS; i++) defs.push(tool(rand, i));
const bytes = defs.reduce((n, d) => n + JSON.stringify(d).length, 0);

/** Median wall and CPU milliseconds of `n` rounds of `fn`, after two warm-up rounds (the first compiles). */
function rounds(fn, n = 7) {
  fn();
  fn();
  const wall = [];
  const cpu = [];
  for (let i = 0; i < n; i++) {
    globalThis.gc?.();
    const usage = process.cpuUsage();
    const start = process.hrtime.bigint();
    fn();
    wall.push(Number(process.hrtime.bigint() - start) / 1e6);
    const used = process.cpuUsage(usage);
    cpu.push((used.user + used.system) / 1000);
  }
  return { wall: median(wall), cpu: median(cpu) };
}

let sink = 0;
const hash = rounds(() => {
  for (const d of defs) sink += definitionHash("tool", d).length;
});
// Where the time goes: the canonical text alone, and two floors no canonical form can beat: native
// JSON.stringify of the same fields (not canonical) and SHA-256 alone of the canonical texts.
const pinned = defs.map((d) => pinnedFields("tool", d));
const canonical = rounds(() => {
  for (const p of pinned) sink += canonicalJson(p).length;
});
const stringify = rounds(() => {
  for (const p of pinned) sink += JSON.stringify(p).length;
});
const texts = pinned.map((p) => canonicalJson(p));
const sha = rounds(() => {
  for (const t of texts) sink += crypto.createHash("sha256").update(t).digest("hex").length;
});
const scan = rounds(() => {
  for (const d of defs) sink += findHiddenText(d).findings.length;
});
const size = `${defs.length} tools, ${(bytes / defs.length).toFixed(0)} B average, ${(bytes / 1e6).toFixed(1)} MB`;
figure("pins: hash 100 × 500 tool definitions", hash.wall, 50, " ms", `(CPU ${hash.cpu.toFixed(0)} ms; ${size})`);
const cpu = (r) => `(CPU ${r.cpu.toFixed(0)} ms)`;
figure("pins: of which canonical JSON", canonical.wall, Infinity, " ms", cpu(canonical));
figure("pins: floor: JSON.stringify of the same (not canonical)", stringify.wall, Infinity, " ms", cpu(stringify));
figure("pins: floor: SHA-256 alone of the canonical texts", sha.wall, Infinity, " ms", cpu(sha));
figure("pins: hidden-text scan of the same", scan.wall, Infinity, " ms", `(CPU ${scan.cpu.toFixed(0)} ms; ${size})`);
// The gateway's check itself: 100 instances' lists held to their pins (all pinned, nothing drifted), as
// a catalog refresh does: hash, compare, serve. The lock is in memory (no file written).
const book = new PinBook({
  file: null,
  pinning: { default: "enforce", instances: {} },
  warn: () => undefined,
  say: () => undefined,
});
const lists = Array.from({ length: INSTANCES }, (_, i) => defs.slice(i * TOOLS, (i + 1) * TOOLS));
for (const [i, l] of lists.entries()) book.review(`mcpConnectors/i${i}`, "tools", l);
const check = rounds(() => {
  lists.forEach((l, i) => {
    sink += book.review(`mcpConnectors/i${i}`, "tools", l).served.length;
  });
});
figure(
  "pins: check 100 × 500 tools against their pins",
  check.wall,
  50,
  " ms",
  `(CPU ${check.cpu.toFixed(0)} ms; ${size})`,
);
figure("pins: check one instance's 500 tools (a list_changed)", check.wall / INSTANCES, 5, " ms", "");
if (sink === 0) console.error("unreachable: keeps the work from being optimised away");
