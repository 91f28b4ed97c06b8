/**
 * What every adapter claim runs against: the one adapter session the kit opens (in its own
 * sandbox), fresh sandboxes for the claims that install, the hook fixtures, and the installer
 * bound to the kit's instance. Claims take it as one object, so the claim files hold no state.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { openAdapter, type AdapterSession } from "../adapter/session.js";
import { installAdapter, uninstallAdapter } from "../adapter/install/index.js";
import { createSandbox, loadFixtures, snapshot, type HookFixture, type Sandbox } from "./adapter-sandbox.js";

export interface AdapterKitOptions {
  /** The plugin folder (holds plugin.json). */
  pluginDir: string;
  /** The instance's config in the sandbox's connectors.json. */
  config?: Record<string, unknown>;
  /** What the fake client binary prints for its version (default "<command> 1.0.0"). */
  clientVersionOutput?: string;
  /** Fixtures in addition to <pluginDir>/fixtures/*.json. */
  fixtures?: HookFixture[];
}

export interface AdapterClaim {
  name: string;
  /**
   * Throws ClaimSkipped (through `skipClaim`) when there is nothing of this adapter's to check;
   * reported skipped, with the reason.
   */
  run(): Promise<void>;
}

/** A claim with nothing to check for this adapter: reported skipped with its reason, never as a pass. */
export class ClaimSkipped extends Error {
  override name = "ClaimSkipped";
}

export function skipClaim(reason: string): never {
  throw new ClaimSkipped(reason);
}

export const INSTANCE = "kit";

export interface AdapterKitContext {
  pluginDir: string;
  pluginJson: { name: string; capabilities?: string[] };
  fixtures: HookFixture[];
  /** The adapter session; fails the claim when the adapter did not load. */
  s(): AdapterSession;
  /** The sandbox the session runs in. */
  main(): Sandbox;
  /** A fresh world with the fake client installed. */
  world(command: string): Sandbox;
  install(sb: Sandbox, dryRun?: boolean): ReturnType<typeof installAdapter>;
  uninstall(sb: Sandbox): ReturnType<typeof uninstallAdapter>;
  snap(sb: Sandbox): ReturnType<typeof snapshot>;
  /** Whether plugin.json declares the method callable. */
  callable(m: string): boolean;
  setup(): Promise<void>;
  teardown(): Promise<void>;
}

export function adapterKitContext(opts: AdapterKitOptions): AdapterKitContext {
  const pluginDir = path.resolve(opts.pluginDir);
  const pluginJson = JSON.parse(readFileSync(path.join(pluginDir, "plugin.json"), "utf8")) as {
    name: string;
    capabilities?: string[];
  };
  const fixtures = [...loadFixtures(pluginDir), ...(opts.fixtures ?? [])];
  let main: Sandbox | null = null;
  let session: AdapterSession | null = null;
  const sandboxes: Sandbox[] = [];

  /** A fresh world with the fake client installed. */
  const world = (command: string): Sandbox => {
    const sb = createSandbox({ pluginDir, pluginName: pluginJson.name, instance: INSTANCE, config: opts.config });
    sb.fakeClient(command, opts.clientVersionOutput ?? `${command} 1.0.0`);
    sandboxes.push(sb);
    return sb;
  };
  const s = () => {
    assert.ok(session, "the adapter did not load (see the first claim)");
    return session;
  };
  const install = (sb: Sandbox, dryRun = false) =>
    installAdapter({ config: sb.configFile, env: sb.env, instance: INSTANCE, dryRun });
  const uninstall = (sb: Sandbox) => uninstallAdapter({ config: sb.configFile, env: sb.env, instance: INSTANCE });
  const snap = (sb: Sandbox) => snapshot([sb.home, sb.project], (k) => k.endsWith("/hooks.log"));
  const callable = (m: string) => (pluginJson.capabilities ?? []).includes(m);

  async function setup(): Promise<void> {
    main = createSandbox({ pluginDir, pluginName: pluginJson.name, instance: INSTANCE, config: opts.config });
    sandboxes.push(main);
    session = await openAdapter({ config: main.configFile, env: main.env, instance: INSTANCE, logLevel: "silent" });
    main.fakeClient(
      session.manifest.client.command,
      opts.clientVersionOutput ?? `${session.manifest.client.command} 1.0.0`,
    );
  }
  async function teardown(): Promise<void> {
    await session?.close();
    for (const sb of sandboxes.splice(0)) sb.dispose();
  }

  return {
    pluginDir,
    pluginJson,
    fixtures,
    s,
    main: () => main!,
    world,
    install,
    uninstall,
    snap,
    callable,
    setup,
    teardown,
  };
}
