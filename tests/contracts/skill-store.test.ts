/**
 * The skill-store rules the host enforces, with a fixture that would turn any name into a path:
 * traversal, separators and control characters are refused before the plugin sees them (so no
 * file appears outside its folder), and a store may not list or answer names callers could not use.
 */
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHost, type Host } from "../../src/index.js";
import { cleanupTempDirs, tempDir, writeConfig } from "../helpers.js";

let host: Host;
let root: string;

beforeAll(async () => {
  root = tempDir();
  const { file } = writeConfig(
    {
      skillStores: {
        naive: { plugin: "fx-skill-naive", config: { dir: "skills/inner" } },
        lister: { plugin: "fx-skill-naive", config: { dir: "skills/inner", listed: ["good", "../../etc/passwd"] } },
        twice: { plugin: "fx-skill-naive", config: { dir: "skills/inner", listed: ["a", "a"] } },
        impostor: { plugin: "fx-skill-naive", config: { dir: "skills/inner", impostor: true } },
      },
    },
    root,
  );
  host = await createHost({ config: file, logLevel: "silent" });
});
afterAll(async () => {
  await host?.close();
  cleanupTempDirs();
});

describe("skill-store contract, enforced by the host", () => {
  it("round-trips a plain name", async () => {
    await host.skills("naive").write("hello", "# hi");
    await expect(host.skills("naive").get("hello")).resolves.toMatchObject({ name: "hello", body: "# hi" });
  });

  it("refuses traversal, separators and control characters before the plugin sees them", async () => {
    for (const name of [
      "../escaped",
      "../../escaped",
      "a/b",
      "a\\b",
      "/abs",
      "x\u0000y",
      "tab\tname",
      "..",
      ".hidden",
    ]) {
      for (const call of [
        () => host.skills("naive").write(name, "pwned"),
        () => host.skills("naive").get(name),
        () => host.skills("naive").delete(name),
      ]) {
        await expect(call(), JSON.stringify(name)).rejects.toMatchObject({ code: "PB_ERR_NAME_INVALID" });
      }
    }
    expect(existsSync(path.join(root, "skills", "escaped.md"))).toBe(false);
    expect(existsSync(path.join(root, "escaped.md"))).toBe(false);
    expect(readdirSync(path.join(root, "skills", "inner"))).toEqual(["hello.md"]);
  });

  it("refuses a list that names a skill callers could not use, or one name twice", async () => {
    await expect(host.skills("lister").list()).rejects.toMatchObject({
      code: "PB_ERR_CONTRACT_VIOLATION",
      message: expect.stringContaining("../../etc/passwd"),
    });
    await expect(host.skills("twice").list()).rejects.toMatchObject({
      code: "PB_ERR_CONTRACT_VIOLATION",
      message: expect.stringContaining('"a" twice'),
    });
  });

  it("refuses a get that answers another skill", async () => {
    await expect(host.skills("impostor").get("hello")).rejects.toMatchObject({
      code: "PB_ERR_CONTRACT_VIOLATION",
      message: expect.stringContaining("hello-impostor"),
    });
  });
});
