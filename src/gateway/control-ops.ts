/**
 * What the running serve answers on its control socket (control.ts checks the caller's key first):
 * `status`, `call` (the same host.call, so the same guard), `pins`, `pins-accept` and
 * `clients-reload` (`patchbay client add|revoke` changed connectors.json's clients).
 */
import { pbError } from "../errors.js";
import type { Host } from "../host/api.js";
import type { ControlHandler } from "./control.js";
import type { Gateway } from "./gateway.js";
import { acceptRequestOf, pinsReport } from "./pins/report.js";

export function controlHandler(
  host: Host,
  gateway: Gateway,
  status: () => unknown,
  reloadClients: () => Promise<unknown>,
): ControlHandler {
  return async (req) => {
    if (req.op === "status") return status();
    if (req.op === "clients-reload") return reloadClients();
    if (req.op === "call") {
      await gateway.booted();
      return controlCall(host, gateway, req);
    }
    if (req.op === "pins") {
      await gateway.booted();
      return pinsReport(gateway.pins, typeof req.instance === "string" ? req.instance : null);
    }
    if (req.op === "pins-accept") {
      await gateway.booted();
      const { instance, names, allowHiddenText } = acceptRequestOf(req);
      const result = gateway.pins.accept(instance, names, { allowHiddenText });
      await gateway.pinsChanged();
      return result;
    }
    throw pbError(
      "PB_ERR_USAGE",
      `Unknown control request ${JSON.stringify(String(req.op)).slice(0, 60)} (known: status, call, pins, pins-accept, clients-reload).`,
    );
  };
}

/** `patchbay call` through the running server: the same host.call, so the same guard. */
async function controlCall(host: Host, gateway: Gateway, req: Record<string, unknown>): Promise<unknown> {
  const { instance, method, args, timeoutMs } = req;
  if (
    typeof instance !== "string" ||
    typeof method !== "string" ||
    !Array.isArray(args) ||
    (timeoutMs !== undefined && typeof timeoutMs !== "number")
  ) {
    throw pbError(
      "PB_ERR_USAGE",
      "A control call needs instance and method (strings), args (an array) and optionally timeoutMs (a number).",
    );
  }
  const started = performance.now();
  try {
    const result = await host.call(instance, method, args, timeoutMs === undefined ? {} : { timeoutMs });
    gateway.calls.stats.record(instance, performance.now() - started, true);
    return result === undefined ? null : result;
  } catch (err) {
    gateway.calls.stats.record(instance, performance.now() - started, false);
    throw err;
  }
}
