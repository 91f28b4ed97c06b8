/**
 * The error model: a substrate that is down, a timeout however it surfaced and a plugin bug come
 * back as three different codes, each wire error says whether a retry may help (decided by the
 * host's catalogue, not the plugin), and an instance whose substrate goes down stops reporting
 * "ready" until a call succeeds again.
 */
import net from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { createHost, type PatchbayError } from "../../src/index.js";
import { fromWire, toWire } from "../../src/errors.js";
import { cleanupTempDirs, writeConfig } from "../helpers.js";

afterAll(cleanupTempDirs);

function listen(): Promise<net.Server> {
  return new Promise((resolve) => {
    const server = net.createServer((s) => s.end());
    server.listen(0, "127.0.0.1", () => resolve(server));
  });
}

const q = (query: string) => ({ query, limit: 5, mode: "fts" });

describe("error model", () => {
  it("tells a down substrate, a timeout and a plugin bug apart, with retryable from the catalogue", async () => {
    const server = await listen();
    const port = (server.address() as net.AddressInfo).port;
    const { file } = writeConfig({ memoryStores: { s: { plugin: "fx-substrate", config: { port } } } });
    const host = await createHost({ config: file, logLevel: "silent" });
    try {
      const codeOf = (query: string) =>
        host
          .memory("s")
          .query(q(query) as never)
          .then(
            () => null,
            (e: PatchbayError) => toWire(e),
          );
      expect(await codeOf("ok")).toBeNull();
      expect(await codeOf("unavailable")).toMatchObject({ code: "PB_ERR_SUBSTRATE_UNAVAILABLE", retryable: true });
      expect(await codeOf("timeout")).toMatchObject({
        code: "PB_ERR_CALL_TIMEOUT",
        retryable: true,
        data: { source: "substrate" },
      });
      expect(await codeOf("bug")).toMatchObject({ code: "PB_ERR_PLUGIN_THREW", retryable: false });

      // The database goes away: a real ECONNREFUSED, and the instance stops saying "ready".
      await new Promise<void>((r) => server.close(() => r()));
      const down = await codeOf("ok");
      expect(down).toMatchObject({ code: "PB_ERR_SUBSTRATE_UNAVAILABLE", retryable: true });
      expect(down!.message).toContain("ECONNREFUSED");
      const caps = await host.capabilities();
      expect(caps.find((c) => c.id === "memoryStores/s")).toMatchObject({
        state: "degraded",
        error: { code: "PB_ERR_SUBSTRATE_UNAVAILABLE" },
      });

      // Back up on the same port: the next call that succeeds makes it ready again.
      const again = net.createServer((s) => s.end());
      await new Promise<void>((r) => again.listen(port, "127.0.0.1", () => r()));
      try {
        expect(await codeOf("ok")).toBeNull();
        expect((await host.capabilities()).find((c) => c.id === "memoryStores/s")).toMatchObject({
          state: "ready",
          error: null,
        });
      } finally {
        again.close();
      }
    } finally {
      await host.close();
    }
  });

  it("never takes retryable from the other side of the boundary", () => {
    const forged = fromWire({ code: "PB_ERR_PLUGIN_THREW", message: "x", hint: "h", data: {}, retryable: true });
    expect(toWire(forged).retryable).toBe(false);
  });

  it("keeps the code of a PatchbayError made by another copy of the class, and only wire-shaped hint and data", () => {
    class PatchbayError extends Error {
      override name = "PatchbayError";
      code = "PB_ERR_ADAPTER_MANIFEST_INVALID";
      hint: unknown = "fix the key";
      data: unknown = { key: "guards" };
    }
    expect(toWire(new PatchbayError("bad manifest"))).toEqual({
      code: "PB_ERR_ADAPTER_MANIFEST_INVALID",
      message: "bad manifest",
      hint: "fix the key",
      data: { key: "guards" },
      retryable: false,
    });
    const odd = Object.assign(new PatchbayError("odd"), { hint: 42, data: ["x"] });
    expect(toWire(odd)).toMatchObject({ code: "PB_ERR_ADAPTER_MANIFEST_INVALID", data: {} });
    expect(typeof toWire(odd).hint).toBe("string");
    const unknownCode = Object.assign(new PatchbayError("x"), { code: "PB_ERR_MADE_UP" });
    expect(toWire(unknownCode).code).toBe("PB_ERR_INTERNAL");
  });

  it("gives an optional instance's failed health check a hint that does not tell it to become optional", async () => {
    const server = await listen();
    const port = (server.address() as net.AddressInfo).port;
    await new Promise<void>((r) => server.close(() => r()));
    const { file } = writeConfig({
      memoryStores: {
        s: { plugin: "fx-substrate", required: false, config: { port } },
        r: { plugin: "fx-substrate", config: { port } },
      },
    });
    const host = await createHost({ config: file, logLevel: "silent", collect: true });
    try {
      const report = host.report();
      const optional = report.instances.find((i) => i.id === "memoryStores/s")!;
      const required = report.instances.find((i) => i.id === "memoryStores/r")!;
      expect(optional.error).toMatchObject({
        code: "PB_ERR_HEALTH_FAILED",
        data: { cause: "PB_ERR_SUBSTRATE_UNAVAILABLE" },
      });
      expect(optional.error!.hint).not.toContain('"required": false to');
      expect(optional.error!.hint).toContain("optional");
      expect(required.error!.hint).toContain('"required": false');
    } finally {
      await host.close();
    }
  });
});
