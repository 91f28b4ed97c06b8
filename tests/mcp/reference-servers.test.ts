/**
 * mcp-remote through a real host with the other reference servers: server-memory and
 * server-filesystem declare an outputSchema on every tool, so each call here also proves the
 * host's structuredContent check accepts what real servers answer. server-filesystem started
 * without folders takes its allowed folders from the client's roots: the configured roots.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { bootMcp, type TestHost } from "./_host.js";

const bin = (name: string) => fileURLToPath(new URL(`../../node_modules/.bin/${name}`, import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "pb-mcp-ref-"));
const hosts: TestHost[] = [];
afterAll(async () => {
  await Promise.all(hosts.map((h) => h.host.close()));
  rmSync(dir, { recursive: true, force: true });
});

describe("reference servers", () => {
  it("server-memory: writes and reads its graph; structured results pass the outputSchema check", async () => {
    const t = await bootMcp({
      memory: {
        plugin: "mcp-remote",
        config: { command: bin("mcp-server-memory"), env: { MEMORY_FILE_PATH: join(dir, "memory.jsonl") } },
      },
    });
    hosts.push(t);
    const tools = (await t.host.call("mcpConnectors/memory", "list_tools")) as {
      name: string;
      outputSchema?: object;
    }[];
    expect(tools.find((x) => x.name === "read_graph")?.outputSchema).toBeTruthy();
    await t.host.call("mcpConnectors/memory", "call", [
      "create_entities",
      { entities: [{ name: "patchbay", entityType: "project", observations: ["hosts plugins"] }] },
    ]);
    const graph = (await t.host.call("mcpConnectors/memory", "call", ["read_graph", {}])) as {
      structuredContent?: { entities?: { name: string }[] };
    };
    expect(graph.structuredContent?.entities?.map((e) => e.name)).toContain("patchbay");
  });

  it("server-filesystem: works inside the configured roots and nowhere else", async () => {
    const inside = join(dir, "inside");
    mkdirSync(inside);
    writeFileSync(join(inside, "note.txt"), "hello from the root");
    const t = await bootMcp({
      fs: {
        plugin: "mcp-remote",
        timeout_ms: 20_000,
        config: { command: bin("mcp-server-filesystem"), roots: [{ uri: `file://${inside}`, name: "inside" }] },
      },
    });
    hosts.push(t);
    // The server starts with no directory and takes the roots it asks for after initialize; a call
    // before that answer lands is refused by the server itself ("not in" an empty list).
    await t.waitLog((r) => String(r.line ?? "").includes("Updated allowed directories from MCP roots"), "the roots");
    const read = (await t.host.call("mcpConnectors/fs", "call", [
      "read_text_file",
      { path: join(inside, "note.txt") },
    ])) as { content: { text: string }[] };
    expect(read.content[0].text).toContain("hello from the root");
    await expect(
      t.host.call("mcpConnectors/fs", "call", ["read_text_file", { path: "/etc/hostname" }]),
    ).rejects.toMatchObject({ code: "PB_ERR_TOOL_ERROR" });
  });
});
