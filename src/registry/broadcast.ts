/**
 * host.broadcast(agent_id, payload): one dispatch event delivered through every agent connector
 * whose list_agents() includes the agent. Seed 000, footnote 1: the branches share one
 * dispatch_id and one sent_at (the receiver dedupes on dispatch_id); a later broadcast gets a new
 * one. Branches run in parallel and one failing branch never hides the others: each comes back
 * with its receipt or its error. Nobody listing the agent is an error, never a silent no-op
 * (the reference's NoOp fallback hid exactly this wiring gap).
 */
import { randomUUID } from "node:crypto";
import { pbError, toWire, type WireError } from "../errors.js";
import type { DeliveryReceipt } from "../contract/types.js";
import type { HostMeta } from "../contract/target.js";
import type { InstanceEntry } from "./registry.js";

export type BroadcastBranch =
  | { instance: string; ok: true; receipt: DeliveryReceipt }
  | { instance: string; ok: false; error: WireError };

export interface BroadcastResult {
  agent_id: string;
  dispatch_id: string;
  sent_at: number;
  /** One per connector that lists the agent, in configuration order. */
  deliveries: BroadcastBranch[];
  /** Connectors whose list_agents() failed, so whether they serve the agent is unknown. */
  unreachable: { instance: string; error: WireError }[];
}

export type BroadcastInvoke = (
  entry: InstanceEntry,
  method: string,
  args: unknown[],
  opts: { timeoutMs?: number },
  hostMeta?: HostMeta,
) => Promise<unknown>;

export async function broadcast(
  entries: InstanceEntry[],
  invoke: BroadcastInvoke,
  agentId: string,
  payload: unknown,
  timeoutMs?: number,
): Promise<BroadcastResult> {
  const connectors = entries.filter(
    (e) =>
      e.section === "agentConnectors" &&
      e.worker !== null &&
      (e.state === "ready" || e.state === "degraded") &&
      e.error === null,
  );
  const unreachable: BroadcastResult["unreachable"] = [];
  const listed = await Promise.all(
    connectors.map(async (e) => {
      try {
        const agents = (await invoke(e, "list_agents", [], { timeoutMs })) as { agent_id: string }[];
        return agents.some((a) => a.agent_id === agentId) ? e : null;
      } catch (err) {
        unreachable.push({ instance: e.id, error: toWire(err) });
        return null;
      }
    }),
  );
  const targets = listed.filter((e): e is InstanceEntry => e !== null);
  if (targets.length === 0) {
    throw pbError(
      "PB_ERR_AGENT_NOT_FOUND",
      `No agent connector lists agent "${agentId}" (asked: ${connectors.map((e) => e.id).join(", ") || "none running"}${unreachable.length ? `; unreachable: ${unreachable.map((u) => u.instance).join(", ")}` : ""}).`,
      {
        agent_id: agentId,
        asked: connectors.map((e) => e.id),
        unreachable,
      },
    );
  }
  // Taken once, after discovery: every branch carries the same emit clock and id.
  const meta: HostMeta = { dispatch_id: randomUUID(), sent_at: Date.now() };
  const deliveries = await Promise.all(
    targets.map(async (e): Promise<BroadcastBranch> => {
      try {
        const receipt = (await invoke(e, "deliver", [agentId, payload], { timeoutMs }, meta)) as DeliveryReceipt;
        return { instance: e.id, ok: true, receipt };
      } catch (err) {
        return { instance: e.id, ok: false, error: toWire(err) };
      }
    }),
  );
  return { agent_id: agentId, ...meta, deliveries, unreachable };
}
