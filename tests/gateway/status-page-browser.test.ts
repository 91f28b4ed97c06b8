/**
 * The status page in Debian's headless Chromium (from .ci/chromium.sh, driven by playwright-core;
 * no browser is downloaded), against the real `serve --http` on a copy of the bundled
 * connectors.json (plus an upstream with a tool named like an HTML tag): a wrong token is refused,
 * sign-in lists every instance, an upstream killed for good turns its row unhealthy without a
 * reload, the hostile tool name is text and runs nothing, and axe-core finds no serious or
 * critical accessibility violation. Skipped, with the reason, when PATCHBAY_CHROMIUM is not set.
 * With PATCHBAY_SCREENSHOT=path it also writes the screenshot docs/gateway.md shows.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { chromium } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import { cleanupTempDirs, ROOT, tempDir, writeConfig } from "../helpers.js";
import { HOSTILE } from "../mcp/_host.js";
import { startHttpServe } from "./_gateway.js";

afterAll(cleanupTempDirs);

const CHROMIUM = process.env.PATCHBAY_CHROMIUM;
const XSS = "<img src=x onerror=alert(1)>";
const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/** The bundled connectors.json, health checked often, its demo upstream behind a file the test can remove. */
function bundledCopy(): { file: string; dir: string; upstream: string; pidFile: string } {
  const dir = tempDir("pb-page-");
  const bundled = JSON.parse(readFileSync(path.join(ROOT, "connectors.json"), "utf8"));
  const upstream = path.join(dir, "upstream.mjs");
  const pidFile = path.join(dir, "upstream.pid");
  writeFileSync(
    upstream,
    `import { writeFileSync } from "node:fs";\nwriteFileSync(${JSON.stringify(pidFile)}, String(process.pid));\n` +
      `await import(${JSON.stringify(path.join(ROOT, "servers", "demo-mcp.mjs"))});\n`,
  );
  const config = {
    ...bundled,
    plugins: [path.join(ROOT, "plugins")],
    defaults: { ...bundled.defaults, health_interval_ms: 250 },
    mcpConnectors: {
      ...bundled.mcpConnectors,
      primary: { ...bundled.mcpConnectors.primary, config: { command: "node", args: [upstream] } },
      odd: { plugin: "mcp-remote", config: { command: "node", args: [HOSTILE, "--named-tool", XSS] } },
    },
  };
  const { file } = writeConfig(config, dir);
  return { file, dir, upstream, pidFile };
}

describe.skipIf(!CHROMIUM)("the status page in headless Chromium", () => {
  it("signs in, lists every instance, turns a killed upstream's row unhealthy live, escapes a hostile tool name, passes axe", async () => {
    const setup = bundledCopy();
    const bundledIds = Object.entries(JSON.parse(readFileSync(path.join(ROOT, "connectors.json"), "utf8")))
      .filter(([section]) => /^(memoryStores|localModels|mcpConnectors|agentConnectors|skillStores)$/.test(section))
      .flatMap(([section, entries]) =>
        Object.entries(entries as Record<string, unknown>)
          .filter(([key, v]) => !key.startsWith("_") && typeof v === "object")
          .map(([key]) => `${section}/${key}`),
      );
    expect(bundledIds.length).toBeGreaterThanOrEqual(5);
    const s = await startHttpServe(setup.file, { PATCHBAY_TOKEN: "page-token-1", PATCHBAY_HOME: setup.dir });
    const context = await chromium.launchPersistentContext(tempDir("pb-chromium-"), {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
      viewport: { width: 1280, height: 900 },
    });
    try {
      const page = context.pages()[0] ?? (await context.newPage());
      const dialogs: string[] = [];
      page.on("dialog", (d) => {
        dialogs.push(d.message());
        void d.dismiss();
      });
      const urls: string[] = [];
      page.on("request", (r) => urls.push(r.url()));

      await page.goto(`${s.base}/`);
      await page.fill("#token", "wrong-token");
      await Promise.all([page.waitForLoadState(), page.click("button[type=submit]")]);
      await expect.poll(() => page.locator(".problem").textContent()).toContain("not this server's token");
      expect(await context.cookies()).toEqual([]);

      await page.fill("#token", "page-token-1");
      await Promise.all([page.waitForURL(`${s.base}/`), page.click("button[type=submit]")]);
      const cookies = await context.cookies();
      expect(cookies).toHaveLength(1);
      expect(cookies[0]).toMatchObject({ name: "patchbay_page", httpOnly: true, sameSite: "Strict", path: "/" });
      expect(await page.evaluate("document.cookie")).toBe("");
      expect(urls.some((u) => u.includes("page-token-1"))).toBe(false);

      for (const id of bundledIds) await page.locator(`tr[data-id="${id}"]`).waitFor();
      // The hostile tool's name is shown as text, and nothing it carries ran.
      await expect.poll(() => page.locator("#tools td", { hasText: XSS }).count()).toBe(1);
      expect(await page.locator("#tools img, #instances img").count()).toBe(0);
      await page.locator("#live", { hasText: "Live: updated" }).waitFor();

      // A string is evaluated through the DevTools protocol, which the page's CSP does not govern.
      await page.evaluate(AXE);
      const axe = (await page.evaluate(
        "axe.run().then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length })))",
      )) as { id: string; impact: string }[];
      expect(axe.filter((v) => v.impact === "serious" || v.impact === "critical")).toEqual([]);

      // Kill the demo upstream for good (its restart finds no script): its row turns unhealthy in place.
      await page.evaluate("window.marker = 42");
      const row = page.locator('tr[data-id="mcpConnectors/primary"]');
      expect(await row.getAttribute("class")).toBe("healthy");
      const pid = Number(readFileSync(setup.pidFile, "utf8"));
      rmSync(setup.upstream);
      process.kill(pid, "SIGKILL");
      await page.locator('tr[data-id="mcpConnectors/primary"].unhealthy').waitFor({ timeout: 60_000 });
      expect(await row.locator('td[data-field="health"]').textContent()).toBe("unhealthy");
      expect(await page.evaluate("window.marker")).toBe(42);
      expect(dialogs).toEqual([]);

      if (process.env.PATCHBAY_SCREENSHOT)
        await page.screenshot({ path: process.env.PATCHBAY_SCREENSHOT, fullPage: false });
    } finally {
      await context.close();
      await s.stop();
    }
  }, 120_000);
});

describe.skipIf(CHROMIUM)("the status page in headless Chromium (not installed)", () => {
  it("is skipped", (ctx) => {
    console.log('skipped: PATCHBAY_CHROMIUM is not set (eval "$(.ci/chromium.sh)" installs Debian\'s chromium)');
    ctx.skip();
  });
});
