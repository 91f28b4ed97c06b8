/**
 * A throwaway world for exercising an adapter for real: a temp HOME, a project folder with its
 * own connectors.json, the plugin linked into a plugins folder, and a fake client binary on PATH
 * that prints a version. Plus the snapshot used to prove "changes nothing" and "byte for byte".
 */
import { createHash } from "node:crypto";
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { EVENT_KEYS } from "../adapter-sdk/contract.js";

export interface HookFixture {
  file: string;
  event: string | null;
  payload: unknown;
  expect: { kind: string; sessionId?: string; tool?: string | null; targets?: string[]; model?: string | null };
}

/** Every fixtures/*.json of the plugin that has the {event?, payload, expect} shape. */
export function loadFixtures(pluginDir: string): HookFixture[] {
  const dir = path.join(pluginDir, "fixtures");
  let names: string[] = [];
  try {
    names = readdirSync(dir)
      .filter((n) => n.endsWith(".json"))
      .sort();
  } catch {
    return [];
  }
  const out: HookFixture[] = [];
  for (const name of names) {
    const doc = JSON.parse(readFileSync(path.join(dir, name), "utf8")) as Partial<HookFixture>;
    if (doc && typeof doc === "object" && "payload" in doc && doc.expect && typeof doc.expect.kind === "string") {
      out.push({
        file: `fixtures/${name}`,
        event: typeof doc.event === "string" ? doc.event : null,
        payload: doc.payload,
        expect: doc.expect,
      });
    }
  }
  return [...out, ...loadCaptures(pluginDir)];
}

/**
 * The captures `patchbay adapter certify` wrote (fixtures/captures/<version>-<platform>/*.json):
 * the same files certification.json names, each expected to normalize as it did when captured.
 * A capture the adapter refused at the time (kind null) is left out.
 */
function loadCaptures(pluginDir: string): HookFixture[] {
  const root = path.join(pluginDir, "fixtures", "captures");
  let names: string[] = [];
  try {
    names = (readdirSync(root, { recursive: true }) as string[]).filter((n) => n.endsWith(".json")).sort();
  } catch {
    return [];
  }
  const out: HookFixture[] = [];
  for (const name of names) {
    const doc = JSON.parse(readFileSync(path.join(root, name), "utf8")) as {
      event?: unknown;
      payload?: unknown;
      normalized?: Record<string, unknown> | null;
    };
    if (!doc || typeof doc !== "object" || !doc.normalized || typeof doc.normalized.kind !== "string") continue;
    const { kind, ...rest } = doc.normalized;
    out.push({
      file: `fixtures/captures/${name}`,
      event: typeof doc.event === "string" ? doc.event : null,
      payload: doc.payload,
      expect: { kind: kind as string, ...rest } as HookFixture["expect"],
    });
  }
  return out;
}

export interface Sandbox {
  root: string;
  home: string;
  project: string;
  stateDir: string;
  bin: string;
  configFile: string;
  env: Record<string, string>;
  /** Writes the fake client binary `command`, printing `output`. */
  fakeClient(command: string, output: string): string;
  dispose(): void;
}

export function createSandbox(opts: {
  pluginDir: string;
  pluginName: string;
  instance: string;
  config?: Record<string, unknown>;
  extraConfig?: Record<string, unknown>;
}): Sandbox {
  const root = mkdtempSync(path.join(os.tmpdir(), "pb-adapter-kit-"));
  const home = path.join(root, "home");
  const project = path.join(root, "project");
  const bin = path.join(root, "bin");
  const plugins = path.join(root, "plugins");
  for (const d of [home, project, bin, plugins]) mkdirSync(d, { recursive: true });
  symlinkSync(path.resolve(opts.pluginDir), path.join(plugins, opts.pluginName));
  const configFile = path.join(project, "connectors.json");
  writeFileSync(
    configFile,
    JSON.stringify(
      {
        plugins: [plugins],
        ...(opts.extraConfig ?? {}),
        adapters: { [opts.instance]: { plugin: opts.pluginName, config: opts.config ?? {} } },
      },
      null,
      2,
    ) + "\n",
  );
  // The system folders stay on PATH so /bin/sh scripts run; the fake client comes first.
  const env = { HOME: home, PATH: [bin, "/usr/bin", "/bin"].join(path.delimiter) };
  return {
    root,
    home,
    project,
    bin,
    configFile,
    env,
    stateDir: path.join(project, ".patchbay"),
    fakeClient(command, output) {
      const file = path.join(bin, command);
      writeFileSync(file, `#!/bin/sh\nprintf '%s\\n' '${output.replace(/'/g, "'\\''")}'\n`);
      chmodSync(file, 0o755);
      return file;
    },
    dispose: () => rmSync(root, { recursive: true, force: true }),
  };
}

export type Snapshot = Record<string, string>;

/** Every entry under `dirs` (type, content hash or link target, mode for files). */
export function snapshot(dirs: readonly string[], ignore: (rel: string) => boolean = () => false): Snapshot {
  const out: Snapshot = {};
  const walk = (base: string, rel: string) => {
    let names: string[];
    try {
      names = readdirSync(path.join(base, rel));
    } catch {
      return;
    }
    for (const name of names.sort()) {
      const r = rel ? `${rel}/${name}` : name;
      const full = path.join(base, r);
      const key = `${base}/${r}`;
      if (ignore(key)) continue;
      const st = lstatSync(full);
      if (st.isDirectory()) {
        out[key] = "dir";
        walk(base, r);
      } else if (st.isSymbolicLink()) out[key] = `link ${readlinkSync(full)}`;
      else
        out[key] =
          `file ${(st.mode & 0o777).toString(8)} ${createHash("sha256").update(readFileSync(full)).digest("hex")}`;
    }
  };
  for (const d of dirs) walk(d, "");
  return out;
}

export function diffSnapshots(a: Snapshot, b: Snapshot): string[] {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys]
    .filter((k) => a[k] !== b[k])
    .sort()
    .map((k) => `${k}: ${a[k] ?? "(absent)"} -> ${b[k] ?? "(absent)"}`);
}

/** Strings of the payload that are not whitelisted event values: none may appear in the event. */
export function leakedStrings(payload: unknown, event: Record<string, unknown>): string[] {
  const allowed = new Set(
    Object.values(event)
      .flat()
      .filter((v): v is string => typeof v === "string"),
  );
  const found: string[] = [];
  const text = JSON.stringify(event);
  const visit = (v: unknown) => {
    if (typeof v === "string") {
      if (v.length >= 8 && !allowed.has(v) && ![...allowed].some((a) => a.includes(v)) && text.includes(v))
        found.push(v);
    } else if (Array.isArray(v)) v.forEach(visit);
    else if (v && typeof v === "object") Object.values(v).forEach(visit);
  };
  visit(payload);
  return found;
}

export function hasExactlyEventKeys(event: Record<string, unknown>): boolean {
  return JSON.stringify(Object.keys(event).sort()) === JSON.stringify([...EVENT_KEYS].sort());
}

/** A user-owned client file with content of its own, so install must merge into it and uninstall restore it. */
export function seedUserFile(file: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, '{ "patchbayKitUser": { "keep": [1, 2.50] } }\n');
}

/** Every string in the written client files that mentions the shim: the commands the client will run. */
export function wiredCommands(files: string[], shim: string): string[] {
  const found = new Set<string>();
  const visit = (v: unknown) => {
    if (typeof v === "string") {
      if (v.includes(shim)) found.add(v);
    } else if (Array.isArray(v)) v.forEach(visit);
    else if (v && typeof v === "object") Object.values(v).forEach(visit);
  };
  for (const f of files) {
    const text = readFileSync(f, "utf8");
    try {
      visit(JSON.parse(text));
    } catch {
      text
        .split("\n")
        .filter((l) => l.includes(shim))
        .forEach((l) => {
          found.add(l.trim());
        });
    }
  }
  return [...found];
}
