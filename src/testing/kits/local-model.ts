/**
 * The local-model kit: run() answers a string, with and without options (a misspelt option is
 * refused at the host; what a model makes of max_tokens or temperature is not observable here);
 * embed() (when declared) answers one vector per text, every vector of one dimension, the same
 * dimension call after call.
 */
import { attempt, ensure, preview, refused } from "../assert.js";
import type { Claim, KitContext } from "../types.js";
import { declares } from "./common.js";

const prompt = (kit: KitContext) => kit.opts.localModel?.prompt ?? "Say hello.";

export const localModelClaims: Claim[] = [
  {
    name: "run answers a string",
    async run(kit) {
      const text = await attempt("run", () => kit.call("run", prompt(kit)));
      ensure(typeof text === "string", `run answered ${preview(text)}`);
    },
  },
  {
    name: "run accepts its options (model, max_tokens, temperature, timeout_ms) and refuses a misspelt one",
    async run(kit) {
      const opts = {
        max_tokens: 16,
        temperature: 0,
        timeout_ms: kit.opts.timeoutMs ?? 10_000,
        ...(kit.opts.localModel?.model ? { model: kit.opts.localModel.model } : {}),
      };
      const text = await attempt("run with options", () => kit.call("run", prompt(kit), opts));
      ensure(typeof text === "string", `run answered ${preview(text)}`);
      await refused(
        kit.call("run", prompt(kit), { max_token: 16 }),
        "PB_ERR_CONTRACT_ARGS",
        "run with a misspelt option",
      );
    },
  },
  {
    name: "embed answers one vector per text, all of one dimension, stable across calls",
    skip: (kit) => (declares(kit, "embed") ? null : "the plugin does not declare embed"),
    async run(kit) {
      const first = await attempt("embed", () => kit.call<number[][]>("embed", ["alpha", "a longer second text"]));
      ensure(first.length === 2, `embed of 2 texts answered ${first.length} vectors`);
      const dim = first[0].length;
      ensure(dim > 0 && first[1].length === dim, `embed answered dimensions ${first.map((v) => v.length).join(", ")}`);
      const second = await attempt("embed again", () => kit.call<number[][]>("embed", ["gamma"]));
      ensure(
        second.length === 1 && second[0].length === dim,
        `a second embed answered dimension ${second[0]?.length}, the first ${dim}`,
      );
    },
  },
];
