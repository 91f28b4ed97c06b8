/**
 * Progress through the gateway: a client that sends a progressToken with tools/call hears the
 * upstream server's notifications/progress (server-everything → mcp-remote → the host → the
 * gateway), with the client's own token.
 */
import { afterAll, describe, expect, it } from "vitest";
import { cleanupTempDirs } from "../helpers.js";
import { connectStdio } from "./_gateway.js";
import { everythingConfig } from "./_updates.js";

afterAll(cleanupTempDirs);

const TOOL = "everything__trigger-long-running-operation";

describe("the gateway relays progress", () => {
  it("passes the server's progress to the client that asked for it", async () => {
    const { file } = everythingConfig();
    const s = await connectStdio(file);
    try {
      const seen: { progress: number; total?: number }[] = [];
      const result = await s.client.callTool({ name: TOOL, arguments: { duration: 0.3, steps: 3 } }, undefined, {
        onprogress: (p) => seen.push(p),
      });
      expect(result.isError).not.toBe(true);
      // mcp-remote passes progress on at most every 50 ms, and a notification that arrives after
      // the answer is dropped by the client (progress is best effort): at least one, each the server's.
      expect(seen.length).toBeGreaterThanOrEqual(1);
      for (const p of seen) expect(p).toMatchObject({ progress: expect.any(Number), total: 3 });
      expect(seen.map((p) => p.progress)).toEqual([...seen.map((p) => p.progress)].sort((a, b) => a - b));
      expect(seen.every((p) => p.progress >= 1 && p.progress <= 3)).toBe(true);
    } finally {
      await s.close();
    }
  });
});
