/**
 * Runs one certification turn for any client: loads the adapter's certify driver (its own module,
 * through jiti), starts the stub of the model API the driver names, lets the driver write the
 * client's config into the throwaway world, spawns the client with stdin closed and waits for it,
 * bounded. Which client it is never matters here: everything client-specific is the driver's.
 */
import { spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { pbError } from "../../errors.js";
import {
  MODEL_APIS,
  type CertifyDriver,
  type CertifyWorld,
  type ModelApi,
  type StubCall,
} from "../../adapter-sdk/certify-driver.js";
import { startMessagesStub, type StubBlock } from "./messages-stub.js";
import { startResponsesStub, type ResponsesStep } from "./responses-stub.js";
import { startGenerateContentStub, type GenerateStep } from "./generate-content-stub.js";

export interface DriveResult {
  exitCode: number | null;
  stderr: string;
  requests: StubCall[];
}

type Script = (req: StubCall, index: number) => unknown[] | null;

/** The stubs the host serves, by API: each keeps every request it answered. */
const STUBS: Readonly<
  Record<ModelApi, (script: Script) => Promise<{ url: string; requests: StubCall[]; close(): Promise<void> }>>
> = {
  messages: async (script) => {
    const stub = await startMessagesStub((req, i) => script({ ...req, path: "/v1/messages" }, i) as StubBlock[] | null);
    return {
      url: stub.url,
      get requests() {
        return stub.requests.map((r) => ({ ...r, path: "/v1/messages" }));
      },
      close: () => stub.close(),
    };
  },
  responses: (script) => startResponsesStub((req, i) => script(req, i) as ResponsesStep[] | null),
  "generate-content": (script) => startGenerateContentStub((req, i) => script(req, i) as GenerateStep[] | null),
};

/** Loads `<pluginDir>/<file>` and checks it exports a usable `driver`. */
export async function loadDriver(pluginDir: string, file: string, adapter: string): Promise<CertifyDriver> {
  const full = path.join(pluginDir, file);
  let mod: { driver?: Partial<CertifyDriver> };
  try {
    const { createJiti } = await import("jiti");
    mod = (await createJiti(full, { moduleCache: false }).import(full)) as { driver?: Partial<CertifyDriver> };
  } catch (err) {
    throw pbError(
      "PB_ERR_ADAPTER_CERTIFY_FAILED",
      `The certify driver ${full} of ${adapter} could not be loaded (${(err as Error).message.split("\n")[0]}).`,
      { adapter, file: full },
    );
  }
  const d = mod.driver;
  if (
    !d ||
    typeof d.prepare !== "function" ||
    typeof d.script !== "function" ||
    !Array.isArray(d.events) ||
    !Array.isArray(d.denyEvents) ||
    !(MODEL_APIS as readonly unknown[]).includes(d.api)
  ) {
    throw pbError(
      "PB_ERR_ADAPTER_CERTIFY_FAILED",
      `${full} does not export a certify driver (driver.api one of ${MODEL_APIS.join(", ")}, events, denyEvents, prepare(), script()).`,
      { adapter, file: full },
    );
  }
  return d as CertifyDriver;
}

/** The world's folders under `root`. */
export function certifyWorld(root: string, bin: string, hookCommand: string): Omit<CertifyWorld, "stubUrl"> {
  const project = path.join(root, "project");
  const protectedDir = path.join(project, "protected");
  const home = path.join(root, "home");
  for (const d of [home, protectedDir]) mkdirSync(d, { recursive: true });
  return { root, home, project, protectedDir, protectedFile: path.join(protectedDir, "secret.txt"), hookCommand, bin };
}

export async function drive(driver: CertifyDriver, world: Omit<CertifyWorld, "stubUrl">): Promise<DriveResult> {
  let full: CertifyWorld | null = null;
  const script: Script = (req, i) => (full ? scriptOf(req, i) : null);
  let scriptOf: Script = () => null;
  const stub = await STUBS[driver.api](script);
  try {
    full = { ...world, stubUrl: stub.url };
    scriptOf = driver.script(full);
    const spec = driver.prepare(full);
    const run = await new Promise<{ exitCode: number | null; stderr: string }>((resolve, reject) => {
      const child = spawn(spec.command, spec.args, {
        cwd: spec.cwd,
        env: spec.env,
        stdio: ["ignore", "ignore", "pipe"],
      });
      let stderr = "";
      child.stderr.on("data", (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
      const timer = setTimeout(() => child.kill("SIGKILL"), spec.timeoutMs ?? 180_000);
      child.on("error", (err) => {
        clearTimeout(timer);
        reject(err);
      });
      child.on("exit", (code) => {
        clearTimeout(timer);
        resolve({ exitCode: code, stderr });
      });
    });
    return { ...run, requests: [...stub.requests] };
  } finally {
    await stub.close();
  }
}
