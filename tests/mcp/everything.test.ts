/**
 * The whole MCP client surface of mcp-remote, through a real host, against the reference server
 * @modelcontextprotocol/server-everything, on stdio and over Streamable HTTP on 127.0.0.1 (a
 * loopback wrapper, tests/fixtures/mcp/everything-http.mjs): tool metadata, structuredContent, resources,
 * prompts, progress, server logging, instructions, roots, elicitation, task-only tools.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GetPromptResult, ReadResourceResult, ResourceDescriptor, ToolDescriptor } from "../../src/index.js";
import {
  bootMcp,
  EVERYTHING,
  EVERYTHING_HTTP,
  ROOT,
  startHttpFixture,
  type HttpFixture,
  type TestHost,
} from "./_host.js";

let t: TestHost;
const ID = "mcpConnectors/everything";
let http: HttpFixture | null = null;

const transports: [string, () => Record<string, unknown>][] = [
  ["stdio", () => ({ command: "node", args: [EVERYTHING, "stdio"] })],
  ["Streamable HTTP", () => ({ url: http!.url })],
];

afterAll(async () => {
  await http?.stop();
});

const call = (tool: string, args: Record<string, unknown> = {}, opts = {}) =>
  t.host.call(ID, "call", [tool, args], opts) as Promise<{
    content: { type: string; text?: string }[];
    structuredContent?: Record<string, unknown>;
  }>;

describe.each(transports)("mcp-remote against server-everything over %s", (transport, where) => {
  beforeAll(async () => {
    if (transport !== "stdio") http ??= await startHttpFixture(EVERYTHING_HTTP);
    t = await bootMcp({
      everything: {
        plugin: "mcp-remote",
        timeout_ms: 20_000,
        config: { ...where(), roots: [{ uri: `file://${ROOT}`, name: "patchbay" }], log_level: "debug" },
      },
    });
  }, 30_000);
  afterAll(async () => {
    await t?.host.close();
  });

  it("lists tools with title, annotations and outputSchema", async () => {
    const tools = (await t.host.call(ID, "list_tools")) as ToolDescriptor[];
    const structured = tools.find((x) => x.name === "get-structured-content")!;
    expect(structured.title).toEqual(expect.any(String));
    expect(structured.annotations).toEqual(expect.any(Object));
    expect(structured.outputSchema).toMatchObject({ type: "object" });
    // Declared capabilities make the server offer its client-feature tools.
    expect(tools.map((x) => x.name)).toEqual(expect.arrayContaining(["get-roots-list", "trigger-elicitation-request"]));
  });

  it("calls a tool that runs only as a task (SEP-1686), with its status as progress", async () => {
    const tools = (await t.host.call(ID, "list_tools")) as ToolDescriptor[];
    expect(tools.map((x) => x.name)).toContain("simulate-research-query");
    const seen: { progress: number; message?: string }[] = [];
    const result = await call(
      "simulate-research-query",
      { topic: "patch bays" },
      { onProgress: (u: { progress: number; message?: string }) => seen.push(u) },
    );
    expect(result.content[0].text).toContain("Research Report: patch bays");
    expect(seen.length).toBeGreaterThan(0);
    expect(t.logs.some((l) => l.msg === "tool runs as a task" && l.tool === "simulate-research-query")).toBe(true);
  });

  it("returns structuredContent that the host checked against the tool's outputSchema", async () => {
    const result = await call("get-structured-content", { location: "New York" });
    expect(result.structuredContent).toMatchObject({ temperature: expect.any(Number) });
  });

  it("lists and reads resources and resource templates", async () => {
    const resources = (await t.host.call(ID, "list_resources")) as ResourceDescriptor[];
    expect(resources.length).toBeGreaterThan(0);
    const first = resources[0];
    const read = (await t.host.call(ID, "read_resource", [first.uri])) as ReadResourceResult;
    expect(read.contents[0].uri).toBe(first.uri);
    expect(typeof (read.contents[0].text ?? read.contents[0].blob)).toBe("string");
    const templates = (await t.host.call(ID, "list_resource_templates")) as { uriTemplate: string }[];
    expect(templates.map((x) => x.uriTemplate)).toContain("demo://resource/dynamic/text/{resourceId}");
    const dynamic = (await t.host.call(ID, "read_resource", ["demo://resource/dynamic/text/1"])) as ReadResourceResult;
    expect(dynamic.contents[0].text).toEqual(expect.any(String));
  });

  it("lists prompts and gets one with arguments", async () => {
    const prompts = (await t.host.call(ID, "list_prompts")) as {
      name: string;
      arguments?: { name: string; required?: boolean }[];
    }[];
    const args = prompts.find((p) => p.name === "args-prompt")!;
    expect(args.arguments?.find((a) => a.name === "city")?.required).toBe(true);
    const got = (await t.host.call(ID, "get_prompt", ["args-prompt", { city: "Lisbon" }])) as GetPromptResult;
    expect(JSON.stringify(got.messages)).toContain("Lisbon");
    await expect(t.host.call(ID, "get_prompt", ["args-prompt", { city: 3 }])).rejects.toMatchObject({
      code: "PB_ERR_CONTRACT_ARGS",
    });
  });

  it("sends a progressToken and delivers the server's progress to the caller's onProgress", async () => {
    const seen: { progress: number; total?: number }[] = [];
    await call(
      "trigger-long-running-operation",
      { duration: 1, steps: 3 },
      { onProgress: (u: { progress: number; total?: number }) => seen.push(u) },
    );
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.at(-1)).toMatchObject({ total: 3 });
  });

  it("exposes the server's instructions in host.capabilities()", async () => {
    const caps = await t.host.capabilities();
    const mine = caps.find((c) => c.id === ID)!;
    expect(mine.instructions).toMatch(/Everything Server/);
  });

  it("answers roots/list from the configured roots", async () => {
    const result = await call("get-roots-list");
    expect(JSON.stringify(result.content)).toContain(`file://${ROOT}`);
  });

  it("declines elicitation by default, with an answer the server sees", async () => {
    const result = await call("trigger-elicitation-request");
    expect(JSON.stringify(result.content)).toMatch(/decline/i);
    expect(t.logs.some((l) => /elicitation declined/.test(l.msg))).toBe(true);
  });

  it("does not declare sampling without a configured model (the server hides its sampling tool)", async () => {
    const tools = (await t.host.call(ID, "list_tools")) as ToolDescriptor[];
    expect(tools.map((x) => x.name)).not.toContain("trigger-sampling-request");
  });

  it("puts the server's log messages into the instance log at their level", async () => {
    await call("toggle-simulated-logging");
    const line = await t.waitLog((l) => l.msg === "server log" && l.instance === ID, "a server log message");
    // pino levels: the server's level mapped (debug 20 … error 50), its own name kept beside it.
    expect(line.level).toBeGreaterThanOrEqual(20);
    expect(line.mcp_level).toEqual(expect.any(String));
    await call("toggle-simulated-logging");
  });
});

describe.each(transports)("sampling served by a local model, over %s", (transport, where) => {
  it("answers the server's sampling/createMessage with the configured localModels instance", async () => {
    if (transport !== "stdio") http ??= await startHttpFixture(EVERYTHING_HTTP);
    const s = await bootMcp(
      {
        sampler: {
          plugin: "mcp-remote",
          grants: ["localModels/small"],
          config: { ...where(), sampling: { model: "localModels/small", max_tokens: 64 } },
        },
      },
      { plugins: ["tests/fixtures/mcp/plugins"], localModels: { small: { plugin: "fx-sampling-model" } } },
    );
    try {
      const result = (await s.host.call("mcpConnectors/sampler", "call", [
        "trigger-sampling-request",
        { prompt: "say hi", maxTokens: 100 },
      ])) as { content: { text?: string }[] };
      const text = JSON.stringify(result.content);
      // The server quotes the model's answer: our model, our max_tokens cap (64 < the asked 100), the server's prompt.
      expect(text).toMatch(/local-model answer \(max_tokens 64\) to: user: .*say hi/);
      expect(text).toContain("localModels/small");
      expect(s.logs.some((l) => l.msg === "serving a sampling request" && l.model === "localModels/small")).toBe(true);
    } finally {
      await s.host.close();
    }
  });
});
