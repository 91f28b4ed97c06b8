/**
 * The real Gemini CLI, offline (the project's generateContent stub on 127.0.0.1): `adapter
 * install` wires its hooks into the project's .gemini/settings.json, the user trusts the folder
 * (trustedFolders.json; doctor warns until then, since Gemini ignores an untrusted folder's
 * settings), a real turn whose write_file into a protected folder is blocked by Patchbay's deny,
 * the next turn receives an inbox message through BeforeAgent, and `adapter uninstall` restores
 * the user's settings file byte for byte. `.ci/gemini-cli.sh` installs the client and prints
 * PATCHBAY_GEMINI_BIN; without it the test is skipped, saying why.
 */
import { existsSync, readdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { adapterDoctor } from "../../src/adapter/doctor.js";
import { startGenerateContentStub } from "../../src/adapter/certify/generate-content-stub.js";
import type { StubRequest } from "../../src/adapter/certify/stub-server.js";
import { geminiArgs, offlineEnv, stepOf, USER_SETTINGS } from "../../plugins/gemini-cli/src/certify.js";
import { cleanupTempDirs, runCli } from "../helpers.js";
import { INBOX_MESSAGE, realClientProject, runClient } from "./_client.js";

afterAll(cleanupTempDirs);

const GEMINI = process.env.PATCHBAY_GEMINI_BIN;
if (!GEMINI)
  console.log(
    "skipping the real Gemini CLI test: PATCHBAY_GEMINI_BIN is not set (run .ci/gemini-cli.sh, which installs @google/gemini-cli outside the project)",
  );

/** Every file and folder under `dir`, relative, sorted. */
function tree(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" }).sort();
}

describe.runIf(!!GEMINI)("the real Gemini CLI client", () => {
  it("install --dry-run reads the version from the client's package.json and writes nothing, not even under ~/.gemini", async () => {
    const w = realClientProject({
      prefix: "pb-real-gemini-dry-",
      client: GEMINI!,
      command: "gemini",
      plugin: "gemini-cli",
      instance: "gemini",
    });
    const env = { HOME: w.home, PATH: `${w.bin}:${path.dirname(process.execPath)}:/usr/bin:/bin` };
    const before = tree(w.root);
    const r = await runCli(["adapter", "install", "gemini", "--dry-run", "--json", "--config", w.config], {
      cwd: w.project,
      env,
    });
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout).adapters[0];
    expect(report.status).toBe("planned");
    const pkg = JSON.parse(readFileSync(path.join(path.dirname(realpathSync(GEMINI!)), "..", "package.json"), "utf8"));
    expect(report.client.version).toBe(pkg.version);
    expect(tree(w.root), "files written by a dry run").toEqual(before);
    expect(existsSync(path.join(w.home, ".gemini"))).toBe(false);
  });

  it("install, a blocked protected write, an inbox message on the next turn, uninstall byte for byte", async () => {
    const w = realClientProject({
      prefix: "pb-real-gemini-",
      client: GEMINI!,
      command: "gemini",
      plugin: "gemini-cli",
      instance: "gemini",
      dirs: ({ project, home }) => [path.join(project, ".gemini"), path.join(home, ".gemini")],
    });
    const { project, home, bin, config, secret } = w;
    writeFileSync(path.join(home, ".gemini", "settings.json"), USER_SETTINGS);
    // The user's own project settings, in their own formatting: uninstall must give these exact bytes back.
    const settings = path.join(project, ".gemini", "settings.json");
    const original =
      '{\n    "ui": { "hideBanner": true },\n    "hooks": { "AfterAgent": [ { "hooks": [ { "type": "command", "command": "true" } ] } ] }\n}\n';
    writeFileSync(settings, original);

    const env = { HOME: home, PATH: `${bin}:${path.dirname(process.execPath)}:/usr/bin:/bin` };
    const installed = await w.adapter("install", env);
    expect(installed.code, installed.stderr).toBe(0);
    expect(readFileSync(settings, "utf8")).toContain("BeforeTool");
    const codes = async () => (await adapterDoctor({ config, env })).adapters[0].diagnostics.map((d) => d.code);
    expect(await codes()).toContain("folder-untrusted");
    // What trusting the folder in `gemini` records.
    writeFileSync(
      path.join(home, ".gemini", "trustedFolders.json"),
      JSON.stringify({ [project]: "TRUST_FOLDER" }, null, 2),
    );
    expect(await codes()).not.toContain("folder-untrusted");

    let turn = 0;
    const stub = await startGenerateContentStub((req: StubRequest) => {
      const step = stepOf(req);
      if (step === null) return [{ type: "text", text: "{}" }];
      if (turn === 1 && step === 0)
        return [{ type: "function_call", name: "write_file", args: { file_path: secret, content: "leak\n" } }];
      return [{ type: "text", text: "done" }];
    });
    try {
      // Trust comes from trustedFolders.json here, as for a user, not from the automation variable.
      const clientEnv: Record<string, string> = { ...offlineEnv(home, stub.url), PATH: env.PATH };
      delete clientEnv.GEMINI_CLI_TRUST_WORKSPACE;
      turn = 1;
      const first = await runClient(GEMINI!, geminiArgs("write the secret"), project, clientEnv);
      expect(first.exitCode, first.stderr).toBe(0);
      expect(existsSync(secret)).toBe(false);
      expect(
        stub.requests.some((r) => r.text.includes("Tool execution blocked: Patchbay protects")),
        "the deny reason reached the model as the tool's result",
      ).toBe(true);

      await w.deliver(env);
      turn = 2;
      const seen = stub.requests.length;
      const second = await runClient(GEMINI!, geminiArgs("anything new?"), project, clientEnv);
      expect(second.exitCode, second.stderr).toBe(0);
      expect(
        stub.requests.slice(seen).some((r) => r.text.includes(INBOX_MESSAGE)),
        "the inbox message reached the next turn's request",
      ).toBe(true);
    } finally {
      await stub.close();
    }

    const removed = await w.adapter("uninstall", env);
    expect(removed.code, removed.stderr).toBe(0);
    expect(readFileSync(settings, "utf8")).toBe(original);
  }, 300_000);
});
