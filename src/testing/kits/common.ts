/**
 * Claims every kind's kit starts with: the plugin boots with the valid config, health answers
 * true in time, the invalid config makes health false (Airbyte's rule: no hang, no throw),
 * methods outside the contract and undeclared optional methods are refused, and discovery
 * reports the instance truthfully.
 */
import { METHODS } from "../../contract/kinds.js";
import { toWire } from "../../errors.js";
import { ClaimFailure, ensure, preview, refused } from "../assert.js";
import type { Claim, KitContext } from "../types.js";

export const commonClaims: Claim[] = [
  {
    name: "boots with the valid config and reports ready",
    async run(kit) {
      ensure(
        kit.report.state === "ready",
        `state is ${kit.report.state}${kit.report.error ? `: ${kit.report.error.code}: ${kit.report.error.message}` : ""}`,
      );
    },
  },
  {
    name: "health_check answers true within health_timeout_ms",
    async run(kit) {
      // The bound is the call's own deadline, as the host applies health_timeout_ms at boot: a
      // health_check that does not answer in time is cut off with PB_ERR_CALL_TIMEOUT (no clock read here).
      const limit = kit.opts.healthTimeoutMs ?? 5_000;
      let healthy: unknown;
      try {
        healthy = await kit.host.call(kit.id, "health_check", [], { timeoutMs: limit });
      } catch (err) {
        const wire = toWire(err);
        ensure(
          wire.code !== "PB_ERR_CALL_TIMEOUT",
          `health_check() did not answer within health_timeout_ms (${limit} ms)`,
        );
        throw new ClaimFailure(`health_check() failed: ${wire.code}: ${wire.message}`);
      }
      ensure(healthy === true, `health_check() answered ${preview(healthy)}`);
    },
  },
  {
    name: "the invalid config makes health_check answer false (no hang, no throw)",
    skip: (kit) =>
      kit.opts.invalidConfig === null
        ? `no invalid config: ${kit.opts.invalidConfigReason ?? "the plugin has no substrate to break"}`
        : null,
    async run(kit) {
      const result = await kit.invalidHealth();
      if (result.outcome === "false") return;
      const hints: Record<string, string> = {
        true: "the invalid config must point at a broken substrate, and health_check must notice",
        threw: "health_check must catch the substrate's error and answer false",
        hung: "health_check must bound its own probe (ctx.remainingMs(), ctx.signal) and answer false",
        "not-started":
          "give an invalid config that passes the plugin's config schema (a dead port, an unwritable folder); create() must not fail on an unreachable substrate",
      };
      ensure(
        false,
        `health_check ${result.outcome === "not-started" ? "was never reached" : `answered ${result.outcome}`} after ${result.ms} ms (${result.detail}); ${hints[result.outcome]}`,
      );
    },
  },
  {
    name: "a method outside the contract is refused before it reaches the plugin",
    async run(kit) {
      await refused(kit.call("__proto__"), "PB_ERR_METHOD_UNKNOWN", "__proto__()");
      await refused(kit.call("close"), "PB_ERR_METHOD_UNKNOWN", "close()");
    },
  },
  {
    name: "optional methods plugin.json does not declare are refused",
    skip: (kit) => (undeclared(kit).length === 0 ? "the plugin declares every optional method of its kind" : null),
    async run(kit) {
      for (const method of undeclared(kit)) await refused(kit.call(method), "PB_ERR_METHOD_UNDECLARED", `${method}()`);
    },
  },
  {
    name: "capabilities() reports kind, plugin@version, declared methods and health",
    async run(kit) {
      const caps = (await kit.host.capabilities()).find((c) => c.id === kit.id);
      ensure(caps, `host.capabilities() has no entry for ${kit.id}`);
      ensure(caps.kind === kit.kind, `kind is ${caps.kind}, expected ${kit.kind}`);
      ensure(caps.plugin === `${kit.manifest.name}@${kit.manifest.version}`, `plugin is ${caps.plugin}`);
      ensure(caps.state === "ready", `state is ${caps.state}`);
      for (const m of METHODS[kit.kind].required.filter((r) => r !== "health_check"))
        ensure(caps.methods?.includes(m), `methods lacks required ${m}`);
      for (const m of kit.manifest.capabilities)
        ensure(
          caps.methods?.includes(m) && caps.optional?.includes(m),
          `declared optional method ${m} is not reported`,
        );
      const listed = await kit.host.list(kit.id.split("/")[0] as never);
      ensure(
        listed.some((c) => c.id === kit.id),
        `host.list() does not include ${kit.id}`,
      );
    },
  },
];

function undeclared(kit: KitContext): string[] {
  return METHODS[kit.kind].optional.filter((m) => !kit.manifest.capabilities.includes(m));
}

/** True when the plugin declares the optional method. */
export function declares(kit: KitContext, method: string): boolean {
  return kit.manifest.capabilities.includes(method);
}
