/**
 * The skill-store kit: write → get → list → delete round-trips a body byte for byte; rewriting
 * replaces it; unknown names answer null/false; names that could become paths outside the store
 * (traversal, separators, control characters) are refused at the host before the plugin sees them.
 */
import type { SkillRecord } from "../../contract/types.js";
import { attempt, ensure, preview, refused } from "../assert.js";
import type { Claim } from "../types.js";

const BODY = "# Kit skill\n\nUnicode kept: café, 日本語, emoji 🎛️, a tab\tand CRLF\r\nend.\n";

const HOSTILE = [
  "../escape",
  "..",
  "a/b",
  "a\\b",
  "/etc/passwd",
  "nul\u0000byte",
  "line\nbreak",
  "C:evil",
  ".hidden",
  "con",
];

export const skillStoreClaims: Claim[] = [
  {
    name: "write → get → list → delete round-trips a skill byte for byte",
    async run(kit) {
      const name = `kit-${kit.token}`;
      await attempt("write", () => kit.call("write", name, BODY));
      const got = await attempt("get", () => kit.call<SkillRecord | null>("get", name));
      ensure(got?.name === name, `get("${name}") answered ${preview(got)}`);
      ensure(got.body === BODY, `get() answered a different body: ${preview(got.body)}`);
      const names = await attempt("list", () => kit.call<string[]>("list"));
      ensure(names.includes(name), `list does not include "${name}": ${preview(names)}`);
      ensure(
        (await attempt("delete", () => kit.call("delete", name))) === true,
        "delete of an existing skill did not answer true",
      );
      ensure((await attempt("get", () => kit.call("get", name))) === null, "get after delete did not answer null");
      ensure(
        !(await attempt("list", () => kit.call<string[]>("list"))).includes(name),
        "list still includes the deleted skill",
      );
    },
  },
  {
    name: "writing a skill again replaces its body",
    async run(kit) {
      const name = `kit-${kit.token}-again`;
      await attempt("write", () => kit.call("write", name, "first"));
      await attempt("write", () => kit.call("write", name, "second"));
      const got = await attempt("get", () => kit.call<SkillRecord | null>("get", name));
      ensure(got?.body === "second", `after two writes get() answered ${preview(got)}`);
      await attempt("delete", () => kit.call("delete", name));
    },
  },
  {
    name: "get of an unknown skill answers null; delete of it answers false",
    async run(kit) {
      ensure(
        (await attempt("get", () => kit.call("get", `kit-${kit.token}-missing`))) === null,
        "get of an unknown skill did not answer null",
      );
      ensure(
        (await attempt("delete", () => kit.call("delete", `kit-${kit.token}-missing`))) === false,
        "delete of an unknown skill did not answer false",
      );
    },
  },
  {
    name: "traversal, separator and control-character names are refused before the plugin sees them",
    async run(kit) {
      for (const name of HOSTILE) {
        for (const [method, args] of [
          ["get", [name]],
          ["write", [name, "x"]],
          ["delete", [name]],
        ] as const) {
          await refused(kit.call(method, ...args), "PB_ERR_NAME_INVALID", `${method}(${JSON.stringify(name)})`);
        }
      }
      const names = await attempt("list", () => kit.call<string[]>("list"));
      ensure(!names.some((n) => HOSTILE.includes(n)), `list shows a hostile name: ${preview(names)}`);
    },
  },
];
