/**
 * `serve --watch`: an edit restarts only the instance it affects (the other keeps its worker),
 * the new worker is healthy before it takes over, a call in flight on the old worker finishes,
 * and broken edits (bad JSON, a failing health check) keep the old instance serving until a
 * later good edit is picked up.
 */
import { appendFileSync, cpSync, readFileSync, renameSync, watch, writeFileSync } from "node:fs";
import { createHost } from "../../src/host/host.js";
import type { ReloadOutcome } from "../../src/host/reload.js";
import { startWatching } from "../../src/gateway/watch.js";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cleanupTempDirs, FIXTURE_PLUGINS, tempDir } from "../helpers.js";
import { connectStdio, toolText, type StdioSession } from "./_gateway.js";

afterAll(cleanupTempDirs);

function waitForStderr(s: StdioSession, pattern: RegExp, from: number): Promise<string> {
  return new Promise((resolve) => {
    const check = () => {
      const tail = s.stderr().slice(from);
      const m = pattern.exec(tail);
      if (m) return resolve(tail);
      setImmediate(check);
    };
    check();
  });
}

describe("serve --watch", () => {
  it("reloads one instance while another keeps its worker; in-flight calls finish; broken edits keep the old instance", async () => {
    const dir = tempDir("pb-watch-");
    const file = path.join(dir, "connectors.json");
    const down = path.join(dir, "down");
    writeFileSync(down, "down");
    const write = (labelA: string, extraA: Record<string, unknown> = {}, more: Record<string, unknown> = {}) =>
      writeFileSync(
        file,
        JSON.stringify({
          plugins: [FIXTURE_PLUGINS],
          defaults: { timeout_ms: 10_000, health_interval_ms: 60_000 },
          mcpConnectors: {
            a: { plugin: "fx-gw-mcp", config: { label: labelA, ...extraA } },
            b: { plugin: "fx-gw-mcp", config: { label: "b" } },
            ...more,
          },
        }),
      );
    write("a1");
    const s = await connectStdio(file, ["--watch"]);
    const who = async (tool: string) =>
      JSON.parse(toolText(await s.client.callTool({ name: tool, arguments: {} }))) as { worker: string; label: string };
    try {
      await waitForStderr(s, /watching connectors\.json/, 0);
      const a1 = await who("a__whoami");
      const b1 = await who("b__whoami");
      expect(a1.label).toBe("a1");

      const inFlight = s.client.callTool({ name: "a__slow", arguments: { ms: 1_000 } });
      let mark = s.stderr().length;
      write("a2");
      await waitForStderr(s, /reload done/, mark);
      expect(s.stderr().slice(mark)).toContain("reloaded mcpConnectors/a");
      expect(s.stderr().slice(mark)).not.toContain("reloaded mcpConnectors/b");
      expect(toolText(await inFlight)).toBe("slept 1000");
      const a2 = await who("a__whoami");
      expect(a2.label).toBe("a2");
      expect(a2.worker).not.toBe(a1.worker);
      expect((await who("b__whoami")).worker).toBe(b1.worker);

      mark = s.stderr().length;
      writeFileSync(file, "{ this is not json");
      const broken = await waitForStderr(s, /reload done/, mark);
      expect(broken).toMatch(/PB_ERR_RELOAD_FAILED.*PB_ERR_CONFIG_PARSE/);
      expect((await who("a__whoami")).label).toBe("a2");

      mark = s.stderr().length;
      write("a3", { health_file: down });
      const unhealthy = await waitForStderr(s, /reload done/, mark);
      expect(unhealthy).toMatch(
        /PB_ERR_RELOAD_FAILED.*Reload of mcpConnectors\/a failed, the old instance keeps serving.*PB_ERR_HEALTH_FAILED/,
      );
      expect((await who("a__whoami")).label).toBe("a2");

      mark = s.stderr().length;
      write("a4");
      await waitForStderr(s, /reload done \(1 started/, mark);
      expect((await who("a__whoami")).label).toBe("a4");
      expect((await who("b__whoami")).worker).toBe(b1.worker);

      // A new instance that fails its check had no old one to keep.
      mark = s.stderr().length;
      write("a4", {}, { c: { plugin: "fx-gw-mcp", config: { label: "c", health_file: down } } });
      const added = await waitForStderr(s, /reload done/, mark);
      expect(added).toMatch(/Reload of mcpConnectors\/c failed, it was not added: \[PB_ERR_HEALTH_FAILED\]/);

      // An optional one joins degraded, as boot adds it, and serves once its live check passes.
      const dHealth = path.join(dir, "d-health");
      writeFileSync(dHealth, "down");
      mark = s.stderr().length;
      write(
        "a4",
        {},
        {
          d: {
            plugin: "fx-gw-mcp",
            required: false,
            health_interval_ms: 100,
            config: { label: "d", health_file: dHealth },
          },
        },
      );
      const optional = await waitForStderr(s, /reload done/, mark);
      expect(optional).toMatch(/added mcpConnectors\/d degraded \(it is optional.*\[PB_ERR_HEALTH_FAILED\]/);
      expect(optional).toContain("(1 started, 0 removed, 0 failed)");
      expect((await s.client.listTools()).tools.map((t) => t.name)).not.toContain("d__whoami");
      mark = s.stderr().length;
      writeFileSync(dHealth, "ok");
      await waitForStderr(s, /mcpConnectors\/d is healthy again/, mark);
      // The catalog refresh that follows is announced to clients with list_changed; poll for it.
      while (!(await s.client.listTools()).tools.some((t) => t.name === "d__whoami"))
        await new Promise((r) => setTimeout(r, 20));
      expect((await who("d__whoami")).label).toBe("d");
    } finally {
      await s.close();
    }
  });

  it("refuses a gateway section serve would not start with (a client beyond gateway.expose), keeping the one in force", async () => {
    const dir = tempDir("pb-watch-ceiling-");
    const file = path.join(dir, "connectors.json");
    const write = (clientMethods: string[]) =>
      writeFileSync(
        file,
        JSON.stringify({
          plugins: [FIXTURE_PLUGINS],
          defaults: { health_interval_ms: 60_000 },
          mcpConnectors: { a: { plugin: "fx-gw-mcp" } },
          memoryStores: { primary: { plugin: "fx-health", config: { health: "true" } } },
          gateway: {
            expose: { "memoryStores/primary": ["query"] },
            clients: { c: { tokenSha256: "a".repeat(64), expose: { "memoryStores/primary": clientMethods } } },
          },
        }),
      );
    write(["query"]);
    const s = await connectStdio(file, ["--watch"]);
    try {
      await waitForStderr(s, /watching connectors\.json/, 0);
      let mark = s.stderr().length;
      write(["write"]);
      const refused = await waitForStderr(s, /reload done/, mark);
      expect(refused).toMatch(
        /\[PB_ERR_RELOAD_FAILED\] Reload of connectors\.json's gateway section failed, the one in force stays: \[PB_ERR_CONFIG_INVALID\]/,
      );
      expect(refused).toContain(
        '/gateway/clients/c/expose/memoryStores~1primary: "write" is not exposed by the gateway',
      );
      expect(refused).toContain("reload done (0 started, 0 removed, 1 failed)");
      mark = s.stderr().length;
      write(["query"]);
      expect(await waitForStderr(s, /reload done/, mark)).toContain("reload done (0 started, 0 removed, 0 failed)");
    } finally {
      await s.close();
    }
  });

  it("restarts only the instances whose plugin folder changed", async () => {
    const dir = tempDir("pb-watch-plugin-");
    const plugins = path.join(dir, "plugins");
    cpSync(path.join(FIXTURE_PLUGINS, "fx-gw-mcp"), path.join(plugins, "fx-gw-copy"), { recursive: true });
    const manifest = path.join(plugins, "fx-gw-copy", "plugin.json");
    writeFileSync(manifest, readFileSync(manifest, "utf8").replace('"fx-gw-mcp"', '"fx-gw-copy"'));
    const file = path.join(dir, "connectors.json");
    writeFileSync(
      file,
      JSON.stringify({
        plugins: [plugins, FIXTURE_PLUGINS],
        defaults: { health_interval_ms: 60_000 },
        mcpConnectors: { copy: { plugin: "fx-gw-copy" }, fixed: { plugin: "fx-gw-mcp" } },
      }),
    );
    const s = await connectStdio(file, ["--watch"]);
    const who = async (tool: string) =>
      JSON.parse(toolText(await s.client.callTool({ name: tool, arguments: {} }))) as { worker: string };
    try {
      await waitForStderr(s, /watching connectors\.json/, 0);
      const copy1 = await who("copy__whoami");
      const fixed1 = await who("fixed__whoami");
      const mark = s.stderr().length;
      appendFileSync(path.join(plugins, "fx-gw-copy", "src", "index.ts"), "\n// edited\n");
      const out = await waitForStderr(s, /reload done/, mark);
      expect(out).toContain("reloaded mcpConnectors/copy");
      expect(out).not.toContain("reloaded mcpConnectors/fixed");
      expect((await who("copy__whoami")).worker).not.toBe(copy1.worker);
      expect((await who("fixed__whoami")).worker).toBe(fixed1.worker);
    } finally {
      await s.close();
    }
  });

  it("turns a burst of editor saves (write a temp file, rename it over) into one reload", async () => {
    const dir = tempDir("pb-watch-burst-");
    const file = path.join(dir, "connectors.json");
    const config = (label: string) =>
      JSON.stringify({
        plugins: [FIXTURE_PLUGINS],
        defaults: { health_interval_ms: 60_000 },
        mcpConnectors: { a: { plugin: "fx-gw-mcp", config: { label } } },
      });
    writeFileSync(file, config("0"));
    const host = await createHost({ config: file, logLevel: "silent" });
    const outcomes: ReloadOutcome[] = [];
    let sawFinal: () => void = () => undefined;
    let sawFirst: () => void = () => undefined;
    const final = new Promise<void>((r) => (sawFinal = r));
    const first = new Promise<void>((r) => (sawFirst = r));
    const watcher = startWatching(host, (o) => {
      outcomes.push(o);
      sawFirst();
      if (o.config?.instances[0]?.config.label === "final") sawFinal();
    });
    // The test's own watcher paces the saves: the next starts once the previous rename was seen.
    const seen = watch(dir);
    try {
      for (let i = 1; i <= 5; i++) {
        const noticed = new Promise((r) => seen.once("change", r));
        writeFileSync(`${file}.tmp`, config(String(i)));
        renameSync(`${file}.tmp`, file);
        await noticed;
        // Yield past the timers phase once (no wait of any length): an undebounced watcher would reload here.
        await new Promise((r) => setTimeout(r, 0));
      }
      // A later, separate edit; once it is applied, count: the burst must have been one reload.
      await first;
      writeFileSync(file, config("final"));
      await final;
      expect(outcomes.map((o) => o.restarted)).toEqual([["mcpConnectors/a"], ["mcpConnectors/a"]]);
    } finally {
      seen.close();
      watcher.close();
      await host.close();
    }
  });
});
