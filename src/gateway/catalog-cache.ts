/**
 * The tool list of the last boot, kept in `.patchbay/catalog.json`, so a client that spawns
 * `serve --mcp` can be offered its tools before the instances have booted. Claude Code in `-p`
 * mode connects to MCP servers without waiting for them: whatever tools it has when it sends its
 * first request are all the model sees, and an MCP connector's tools cannot be known without its
 * upstream server running. So the gateway answers `tools/list` from this file while it boots, and
 * calls wait for the boot.
 *
 * Each instance's entry carries a fingerprint of everything that decides its tools (plugin and
 * version, resolved config, allowed_tools, its gateway exposure, Patchbay's version): an edited
 * instance is never offered stale tools. The file is 0600 in the 0700 state folder (the fingerprint
 * hashes resolved config values, secrets included). A missing, unreadable, oversized or malformed
 * file is no cache: the gateway then holds the first tools/list for the boot instead.
 */
import { createHmac } from "node:crypto";
import { readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Host } from "../host/api.js";
import { packageVersion } from "../paths.js";
import type { FrontAnswers } from "./stdio-front.js";
import type { Catalog, CatalogTool } from "./catalog.js";
import { exposedMethods } from "./exposure.js";
import { ensureStateDir } from "./state-dir.js";

const FILE = "catalog.json";
const MAX_BYTES = 8 * 1024 * 1024;

type Expose = Readonly<Record<string, boolean | readonly string[]>>;

interface CacheFile {
  version: 1;
  instances: Record<string, { fingerprint: string; tools: CatalogTool[] }>;
  /** The answers bin/patchbay.mjs gives before the CLI loads (gateway/stdio-front.ts). */
  front?: FrontAnswers;
}

/** What the gateway can offer before the boot settles. */
export interface Provisional {
  tools: Map<string, CatalogTool>;
  /** Every instance the boot will expose has a matching entry: no need to hold tools/list. */
  complete: boolean;
}

/**
 * Each planned, exposed instance's fingerprint, keyed (stdio-front.ts stampKey; instances that cannot start are
 * left out).
 */
export function exposedFingerprints(host: Host, expose: Expose, key: Buffer): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of host.registryForReload.all()) {
    const planned = e.planned;
    if (!planned) continue;
    const methods = exposedMethods(
      { id: e.id, kind: planned.pluginInfo.kind, capabilities: planned.pluginInfo.manifest.capabilities },
      expose,
    );
    if (!Array.isArray(methods) || methods.length === 0) continue;
    const what = JSON.stringify([
      packageVersion(),
      e.plugin,
      e.version,
      planned.config,
      planned.allowedTools ?? null,
      planned.identity ?? null,
      expose[e.id] ?? null,
    ]);
    out.set(e.id, createHmac("sha256", key).update(what).digest("hex"));
  }
  return out;
}

function read(dir: string): CacheFile | null {
  try {
    const file = path.join(dir, FILE);
    if (statSync(file).size > MAX_BYTES) return null;
    const doc = JSON.parse(readFileSync(file, "utf8")) as CacheFile;
    if (doc?.version !== 1 || typeof doc.instances !== "object" || doc.instances === null) return null;
    return doc;
  } catch {
    return null;
  }
}

/** The cached tools of every instance whose fingerprint still matches. */
export function loadProvisional(dir: string, fingerprints: Map<string, string>): Provisional {
  const doc = read(dir);
  const tools = new Map<string, CatalogTool>();
  let complete = fingerprints.size > 0;
  for (const [id, fp] of fingerprints) {
    const entry = doc && Object.hasOwn(doc.instances, id) ? doc.instances[id] : null;
    if (!entry || entry.fingerprint !== fp || !Array.isArray(entry.tools)) {
      complete = false;
      continue;
    }
    for (const t of entry.tools) {
      if (t && typeof t.tool?.name === "string" && t.route && typeof t.route.instance === "string")
        tools.set(t.tool.name, t);
    }
  }
  return { tools, complete };
}

/**
 * Records the live catalog (and, once booted, the head start's answers): each live instance's tools; an exposed
 * instance that is not live right now keeps its previous entry (a spell of ill health does not empty the next
 * start's list).
 * Never throws: the cache only ever saves time.
 */
export function saveCatalog(
  dir: string,
  fingerprints: Map<string, string>,
  catalog: Catalog,
  front?: FrontAnswers,
): void {
  try {
    const previous = read(dir);
    const live = new Map<string, CatalogTool[]>();
    for (const id of fingerprints.keys()) if (!catalog.skipped.some((s) => s.instance === id)) live.set(id, []);
    for (const t of catalog.tools.values()) live.get(t.route.instance)?.push(t);
    const instances: CacheFile["instances"] = {};
    for (const [id, fingerprint] of fingerprints) {
      const tools = live.get(id);
      if (tools) instances[id] = { fingerprint, tools };
      else if (previous && Object.hasOwn(previous.instances, id) && previous.instances[id].fingerprint === fingerprint)
        instances[id] = previous.instances[id];
    }
    // While booting there is no new front answer yet: the last one stays for the next start.
    const keptFront = front ?? previous?.front;
    const text = JSON.stringify({
      version: 1,
      instances,
      ...(keptFront ? { front: keptFront } : {}),
    } satisfies CacheFile);
    if (previous && JSON.stringify(previous) === text) return;
    ensureStateDir(dir);
    const tmp = path.join(dir, `${FILE}.${process.pid}.tmp`);
    writeFileSync(tmp, text, { mode: 0o600 });
    renameSync(tmp, path.join(dir, FILE));
  } catch {
    /* A read-only folder only costs the next start its head start. */
  }
}
