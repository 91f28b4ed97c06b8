/**
 * The local-model rules the host enforces, with a fixture that breaks them: run answers a
 * string; embed answers one vector per text, all of one dimension, the same one call after call.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHost, type Host } from "../../src/index.js";
import { cleanupTempDirs, writeConfig } from "../helpers.js";

let host: Host;

beforeAll(async () => {
  const { file } = writeConfig({ localModels: { ragged: { plugin: "fx-model-ragged", timeout_ms: 300 } } });
  host = await createHost({ config: file, logLevel: "silent" });
});
afterAll(async () => {
  await host?.close();
  cleanupTempDirs();
});

describe("local-model contract, enforced by the host", () => {
  it("refuses a run() that answers anything but a string, and options outside the contract", async () => {
    await expect(host.model("ragged").run("hi")).resolves.toBe("echo hi");
    await expect(host.model("ragged").run("number")).rejects.toMatchObject({ code: "PB_ERR_CONTRACT_VIOLATION" });
    await expect(host.model("ragged").run("hi", { max_token: 5 } as never)).rejects.toMatchObject({
      code: "PB_ERR_CONTRACT_ARGS",
      message: expect.stringContaining("max_token"),
    });
  });

  it("refuses ragged vectors and a vector count that does not match the texts", async () => {
    await expect(host.model("ragged").embed!(["ragged", "b"])).rejects.toMatchObject({
      code: "PB_ERR_CONTRACT_VIOLATION",
      data: { dimension: 3, got: 4 },
    });
    await expect(host.model("ragged").embed!(["short", "b"])).rejects.toMatchObject({
      code: "PB_ERR_CONTRACT_VIOLATION",
      message: expect.stringContaining("1 vectors for 2 texts"),
    });
  });

  it("holds an instance to the dimension of its first embeddings", async () => {
    await expect(host.model("ragged").embed!(["a", "b"])).resolves.toHaveLength(2);
    const err = await host.model("ragged").embed!(["wide"]).catch((e) => e);
    expect(err).toMatchObject({ code: "PB_ERR_CONTRACT_VIOLATION", data: { dimension: 3, got: 5 } });
    expect(err.message).toContain("earlier embeddings");
  });

  it("bounds run() by its own timeout_ms option, not only by the instance's timeout_ms", async () => {
    await expect(host.model("ragged").run("sleep 600")).rejects.toMatchObject({ code: "PB_ERR_CALL_TIMEOUT" });
    await expect(host.model("ragged").run("sleep 600", { timeout_ms: 3_000 })).resolves.toBe("echo sleep 600");
  });
});
