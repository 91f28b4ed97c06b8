/**
 * What the real-client tests share: a project wired to one real AI client, the inbox message a peer
 * delivers between its turns, and running the client to completion. Each test keeps only what is
 * its client's own (settings files, trust, the stub of its model API).
 */
import { spawn } from "node:child_process";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { createHost } from "../../src/index.js";
import { ROOT, runCli, tempDir, type CliResult } from "../helpers.js";

/** The message delivered between turns; the next turn's request must carry it. */
export const INBOX_MESSAGE = "INBOX-7731: the build is green";

export interface RealClientProject {
  root: string;
  project: string;
  home: string;
  bin: string;
  /** connectors.json */
  config: string;
  /** A file inside the protected `secrets/` folder, which the client is told to write. */
  secret: string;
  /** `patchbay adapter <verb> <instance>` on this project. */
  adapter(verb: "install" | "uninstall", env: Record<string, string>): Promise<CliResult>;
  /** Delivers INBOX_MESSAGE to the adapter's agent through the inbox instance, as a peer would. */
  deliver(env: Record<string, string>): Promise<void>;
}

/**
 * A temp project for the adapter instance `instance` (also its agent id in the inbox) of the bundled
 * `plugin`: the real client linked as bin/`command` (so the adapter probes the real version), the
 * bundled plugins, an adapter-inbox instance, `secrets/` protected, and a 30 s hook bound (a loaded
 * machine must not fail the guard open while it starts node).
 */
export function realClientProject(opts: {
  prefix: string;
  client: string;
  command: string;
  plugin: string;
  instance: string;
  /** Further folders the client's settings live in. */
  dirs?: (p: { project: string; home: string }) => string[];
}): RealClientProject {
  const root = tempDir(opts.prefix);
  const project = path.join(root, "project");
  const home = path.join(root, "home");
  const bin = path.join(root, "bin");
  for (const d of [path.join(project, "secrets"), home, bin, ...(opts.dirs?.({ project, home }) ?? [])])
    mkdirSync(d, { recursive: true });
  symlinkSync(opts.client, path.join(bin, opts.command));
  const config = path.join(project, "connectors.json");
  writeFileSync(
    config,
    JSON.stringify(
      {
        plugins: [path.join(ROOT, "plugins")],
        agentConnectors: {
          inbox: { plugin: "adapter-inbox", config: { path: ".patchbay/inbox.db", agents: [opts.instance] } },
        },
        adapters: {
          [opts.instance]: {
            plugin: opts.plugin,
            config: { protect: ["secrets"], inbox: "agentConnectors/inbox", hook_timeout_ms: 30_000 },
          },
        },
      },
      null,
      2,
    ),
  );
  return {
    root,
    project,
    home,
    bin,
    config,
    secret: path.join(project, "secrets", "k.txt"),
    adapter: (verb, env) => runCli(["adapter", verb, opts.instance, "--config", config], { cwd: project, env }),
    async deliver(env) {
      const host = await createHost({
        config,
        env: { ...process.env, ...env },
        only: ["agentConnectors/inbox"],
        logLevel: "silent",
      });
      await host.call("agentConnectors/inbox", "deliver", [opts.instance, { kind: "augment", content: INBOX_MESSAGE }]);
      await host.close();
    },
  };
}

/** Runs a real AI client to completion (stdin closed), bounded. */
export function runClient(
  command: string,
  args: string[],
  cwd: string,
  env: Record<string, string>,
  timeoutMs = 150_000,
): Promise<{ exitCode: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout = (stdout + d.toString()).slice(-20_000)));
    child.stderr.on("data", (d: Buffer) => (stderr = (stderr + d.toString()).slice(-8000)));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ exitCode: code, stdout, stderr });
    });
  });
}
