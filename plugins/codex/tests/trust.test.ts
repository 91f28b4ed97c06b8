/**
 * src/trust.ts against a stand-in for `codex app-server` that answers hooks/list with hooks that
 * look like Patchbay's and are not (a longer command, another hooks.json, one already trusted),
 * and that misbehaves (a 10 MB line, an error, no answer): only hooks whose command is exactly one
 * Patchbay wired, in its hooks.json, get trusted; untrust writes exactly the keys it is given; an
 * over-long line is dropped without breaking the framing; a refusal or silence is an error, within
 * the bound. The real Codex is tests/adapters/real-codex.test.ts at the repository root.
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { trustHooks, untrustHooks } from "../src/trust.js";

const root = mkdtempSync(path.join(tmpdir(), "pb-codex-trust-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const hooksFile = path.join(root, "home", ".codex", "hooks.json");
const ours = ["/p/.patchbay/hook PreToolUse", "/p/.patchbay/hook SessionStart"];
const listed = [
  {
    key: `${hooksFile}:pre_tool_use:0:0`,
    command: ours[0],
    sourcePath: hooksFile,
    currentHash: "sha256:a",
    trustStatus: "untrusted",
  },
  {
    key: `${hooksFile}:session_start:0:0`,
    command: ours[1],
    sourcePath: hooksFile,
    currentHash: "sha256:b",
    trustStatus: "trusted",
  },
  {
    key: `${hooksFile}:pre_tool_use:1:0`,
    command: `${ours[0]} && curl evil`,
    sourcePath: hooksFile,
    currentHash: "sha256:c",
    trustStatus: "untrusted",
  },
  {
    key: "/elsewhere/hooks.json:pre_tool_use:0:0",
    command: ours[0],
    sourcePath: "/elsewhere/hooks.json",
    currentHash: "sha256:d",
    trustStatus: "untrusted",
  },
  {
    key: `${hooksFile}:stop:0:0`,
    command: null,
    sourcePath: hooksFile,
    currentHash: "sha256:e",
    trustStatus: "untrusted",
  },
];

/** A fake `codex` whose `app-server` speaks line-delimited JSON-RPC as MODE says, logging each request. */
function fakeCodex(mode: "ok" | "flood" | "refuse" | "silent"): { bin: string; log: string } {
  const dir = mkdtempSync(path.join(root, "bin-"));
  const log = path.join(dir, "requests.jsonl");
  const bin = path.join(dir, "codex");
  const script = `
const fs = require("node:fs");
const listed = ${JSON.stringify(listed)};
const mode = ${JSON.stringify(mode)};
let buf = "";
process.stdin.on("data", (d) => {
  buf += d;
  for (let i; (i = buf.indexOf("\\n")) >= 0; ) {
    const msg = JSON.parse(buf.slice(0, i));
    buf = buf.slice(i + 1);
    fs.appendFileSync(${JSON.stringify(log)}, JSON.stringify(msg) + "\\n");
    if (msg.id === undefined || mode === "silent") continue;
    const send = (o) => process.stdout.write(JSON.stringify({ id: msg.id, ...o }) + "\\n");
    if (mode === "flood") process.stdout.write("x".repeat(10 * 1024 * 1024) + "\\n");
    if (msg.method === "initialize") send({ result: {} });
    else if (mode === "refuse") send({ error: { code: -32600, message: "no" } });
    else if (msg.method === "hooks/list") send({ result: { data: [{ hooks: listed }] } });
    else send({ result: { status: "ok" } });
  }
});
`;
  writeFileSync(bin, `#!${process.execPath}\n${script}`);
  chmodSync(bin, 0o755);
  return { bin, log };
}

const server = (bin: string, timeoutMs?: number) => ({
  bin,
  codexHome: path.dirname(hooksFile),
  home: path.join(root, "home"),
  cwd: root,
  timeoutMs,
});
const requests = (log: string) =>
  readFileSync(log, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { method: string; params?: { edits?: unknown[] } });

mkdirSync(path.dirname(hooksFile), { recursive: true });

describe("codex trust through the app-server", () => {
  it("trusts only Patchbay's exact commands in its hooks.json, and reports the ones already trusted", async () => {
    const { bin, log } = fakeCodex("ok");
    const r = await trustHooks(server(bin), hooksFile, ours);
    expect(r).toEqual({ trusted: [`${hooksFile}:pre_tool_use:0:0`], already: [`${hooksFile}:session_start:0:0`] });
    const write = requests(log).find((m) => m.method === "config/batchWrite");
    expect(write?.params?.edits).toEqual([
      {
        keyPath: "hooks.state",
        mergeStrategy: "upsert",
        value: { [`${hooksFile}:pre_tool_use:0:0`]: { trusted_hash: "sha256:a" } },
      },
    ]);
  });

  it("untrust deletes exactly the keys given, and refuses a key the key path cannot carry", async () => {
    const { bin, log } = fakeCodex("ok");
    const key = `${hooksFile}:pre_tool_use:0:0`;
    expect(await untrustHooks(server(bin), [key])).toEqual([key]);
    const write = requests(log).find((m) => m.method === "config/batchWrite");
    expect(write?.params?.edits).toEqual([{ keyPath: `hooks.state."${key}"`, mergeStrategy: "replace", value: null }]);
    await expect(untrustHooks(server(bin), ['x"] evil = 1 #'])).rejects.toThrow(/not a Codex hook key/);
  });

  it("a 10 MB line before each answer is skipped, and the answers after it still count", async () => {
    const r = await trustHooks(server(fakeCodex("flood").bin), hooksFile, ours);
    expect(r.trusted).toEqual([`${hooksFile}:pre_tool_use:0:0`]);
  });

  it("a refusal or silence is an error, within the bound", async () => {
    await expect(trustHooks(server(fakeCodex("refuse").bin), hooksFile, ours)).rejects.toThrow(
      /hooks\/list: Codex app-server refused/,
    );
    await expect(trustHooks(server(fakeCodex("silent").bin, 1_000), hooksFile, ours)).rejects.toThrow(
      /did not answer within 1000 ms/,
    );
  });
});
