/**
 * A connectors.json syntax error never quotes the file's text: newer V8 (Node 22) appends the
 * text around the error to its message (`, ..."…"... is not valid JSON` in a long file), and a
 * secret written in the file could be in it. Runs the compiled parser under Node 22 when
 * PATCHBAY_NODE22 names one (`.ci/mcp-conformance.sh` installs it); Node 20 never quotes.
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { ROOT } from "../helpers.js";

const NODE22 = process.env.PATCHBAY_NODE22;
if (!NODE22)
  console.warn("[parse-no-quote] SKIPPED: PATCHBAY_NODE22 is not set (source .ci/mcp-conformance.sh output to run it)");

describe.skipIf(!NODE22)("a connectors.json syntax error under Node 22", () => {
  it("names line:column and the reason, never the text around it", () => {
    const source = pathToFileURL(path.join(ROOT, "dist", "config", "source.js")).href;
    const text = `{"a": 11111, "token": "hunter2-secret-xyz-long-long", "c": tru hunter2 ${" ".repeat(40)}}`;
    const script = `const { parseConfigText } = await import(${JSON.stringify(source)}); try { parseConfigText(process.argv[1], "/x/connectors.json"); } catch (e) { console.log(e.message); }`;
    const raw = spawnSync(
      NODE22!,
      ["-e", `try { JSON.parse(process.argv[1]) } catch (e) { console.log(e.message) }`, text],
      { encoding: "utf8" },
    ).stdout;
    expect(raw, "this Node quotes the text, so the test can fail").toContain("hunter2");
    const r = spawnSync(NODE22!, ["--input-type=module", "-e", script, text], { encoding: "utf8" });
    expect(r.stdout).toMatch(/^\/x\/connectors\.json:1:\d+: not valid JSON: Unexpected token/);
    expect(r.stdout).not.toContain("hunter2");
  });
});
