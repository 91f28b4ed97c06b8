/**
 * The agent kit (seeds 000 and 001): list_agents answers descriptors with unique agent_ids;
 * deliver of both kinds answers a receipt with delivered_at ≥ the host's sent_at, recorded in
 * host.receipts(); the host owns DeliveryMeta (a caller's dispatch_id and sent_at never reach the
 * plugin); wake answers woken_at; request_response is NotImplemented or echoes correlation_id;
 * agent_status (when declared) answers the seed's closed set; broadcast reaches the connector.
 */
import { randomUUID } from "node:crypto";
import type { AgentDescriptor, AgentResponse, DeliveryReceipt, OutgoingPayload } from "../../contract/types.js";
import { toWire } from "../../errors.js";
import { attempt, ensure, preview } from "../assert.js";
import type { Claim, KitContext } from "../types.js";
import { declares } from "./common.js";

async function agentId(kit: KitContext): Promise<string> {
  if (kit.opts.agent?.agentId) return kit.opts.agent.agentId;
  const agents = await attempt("list_agents", () => kit.call<AgentDescriptor[]>("list_agents"));
  ensure(agents.length > 0, "list_agents answered no agents; pass agent.agentId");
  return agents[0].agent_id;
}

function augment(kit: KitContext): OutgoingPayload {
  return {
    kind: "augment",
    content: `conformance ${kit.token}`,
    format: "text",
    meta: {
      origin: { skill_name: "kit-skill", entry_skill_name: "kit-entry", trigger_kind: "cron" },
      event_type: "kit.check",
    },
    source_skill: "kit-skill",
    triggered_by: { source: "cron", name: "0 8 * * *", fired_at_ms: Date.now() },
    delivery_context: "A conformance check; nothing to do.",
    templates: ["kit-follow-up"],
  };
}

async function deliverChecked(kit: KitContext, payload: OutgoingPayload): Promise<void> {
  const agent = await agentId(kit);
  const before = Date.now();
  const receipt = await attempt(`deliver ${payload.kind}`, () => kit.call<DeliveryReceipt>("deliver", agent, payload));
  const records = kit.host.receipts({ instance: kit.id, agent_id: agent }).filter((r) => r.sent_at >= before);
  const record = records.at(-1);
  ensure(record, "host.receipts() has no record of the delivery");
  ensure(record.ok && record.delivered_at === receipt.delivered_at, `the recorded receipt differs: ${preview(record)}`);
  ensure(
    receipt.delivered_at >= record.sent_at,
    `delivered_at ${receipt.delivered_at} is before sent_at ${record.sent_at}`,
  );
  ensure(record.lag_ms !== null && record.lag_ms >= 0, `lag_ms is ${record.lag_ms}`);
}

export const agentClaims: Claim[] = [
  {
    name: "list_agents answers descriptors with unique agent_ids",
    async run(kit) {
      const agents = await attempt("list_agents", () => kit.call<AgentDescriptor[]>("list_agents"));
      ensure(Array.isArray(agents), `list_agents answered ${preview(agents)}`);
      for (const a of agents)
        ensure(
          typeof a?.agent_id === "string" && a.agent_id.length > 0,
          `list_agents answered a descriptor without an agent_id: ${preview(a)}`,
        );
      const twice = agents.map((a) => a.agent_id).filter((id, i, all) => all.indexOf(id) !== i);
      ensure(twice.length === 0, `list_agents names ${twice.map((id) => `"${id}"`).join(", ")} twice`);
      if (kit.opts.agent?.agentId)
        ensure(
          agents.some((a) => a.agent_id === kit.opts.agent!.agentId),
          `list_agents does not list "${kit.opts.agent.agentId}"`,
        );
    },
  },
  {
    name: "deliver of an augment payload (with provenance) answers delivered_at ≥ sent_at, recorded in receipts",
    run: (kit) => deliverChecked(kit, augment(kit)),
  },
  {
    name: "deliver of a template payload answers delivered_at ≥ sent_at, recorded in receipts",
    run: (kit) =>
      deliverChecked(kit, {
        kind: "template",
        prompt: `Run the kit check ${kit.token}.`,
        meta: { origin: { skill_name: "kit-template", trigger_kind: "agent", caller_agent_id: "kit-caller" } },
      }),
  },
  {
    name: "the host fills DeliveryMeta: a fresh dispatch_id per call; a caller's dispatch_id and sent_at are replaced",
    async run(kit) {
      const agent = await agentId(kit);
      const forged = {
        ...augment(kit),
        meta: { origin: { skill_name: "kit", trigger_kind: "inline" }, dispatch_id: "forged", sent_at: 1 },
      } as unknown as OutgoingPayload;
      const before = Date.now();
      await attempt("deliver", () => kit.call("deliver", agent, forged));
      await attempt("deliver", () => kit.call("deliver", agent, forged));
      const records = kit.host.receipts({ instance: kit.id }).filter((r) => r.sent_at >= before);
      ensure(records.length >= 2, `expected 2 receipts, found ${records.length}`);
      const [a, b] = records.slice(-2);
      ensure(a.dispatch_id !== "forged" && b.dispatch_id !== "forged", "the caller's dispatch_id reached the plugin");
      ensure(a.dispatch_id !== b.dispatch_id, "two deliveries shared one dispatch_id");
    },
  },
  {
    name: "wake answers woken_at",
    async run(kit) {
      const agent = await agentId(kit);
      const receipt = await attempt("wake", () =>
        kit.call<{ woken_at: number }>("wake", agent, { context: "conformance check", when: "immediate" }),
      );
      ensure(receipt.woken_at > 0, `wake answered ${preview(receipt)}`);
    },
  },
  {
    name: "request_response is NotImplemented, or echoes correlation_id",
    async run(kit) {
      const agent = await agentId(kit);
      const correlation_id = `kit-${randomUUID()}`;
      try {
        const reply = await kit.call<AgentResponse>(
          "request_response",
          agent,
          { kind: "augment", content: `ping ${kit.token}` },
          { correlation_id, timeout_ms: kit.opts.timeoutMs ?? 10_000 },
        );
        ensure(reply.correlation_id === correlation_id, `the reply's correlation_id is ${reply.correlation_id}`);
      } catch (err) {
        const wire = toWire(err);
        ensure(
          wire.code === "PB_ERR_NOT_IMPLEMENTED",
          `request_response failed with ${wire.code}: ${wire.message} (throw NotImplementedError when the substrate has no reply path)`,
        );
      }
    },
  },
  {
    name: "agent_status answers active, idle, asleep or unknown",
    skip: (kit) => (declares(kit, "agent_status") ? null : "the plugin does not declare agent_status"),
    async run(kit) {
      const status = await attempt("agent_status", async () => kit.call("agent_status", await agentId(kit)));
      ensure(
        ["active", "idle", "asleep", "unknown"].includes(status as string),
        `agent_status answered ${preview(status)}`,
      );
    },
  },
  {
    name: "broadcast reaches the connector with one dispatch_id, recorded in receipts",
    async run(kit) {
      const agent = await agentId(kit);
      const result = await attempt("broadcast", () => kit.host.broadcast(agent, augment(kit)));
      const mine = result.deliveries.find((d) => d.instance === kit.id);
      ensure(mine?.ok, `the broadcast did not deliver through ${kit.id}: ${preview(mine ?? result)}`);
      const recorded = kit.host.receipts({ dispatch_id: result.dispatch_id });
      ensure(
        recorded.length === result.deliveries.length && recorded.every((r) => r.sent_at === result.sent_at),
        `receipts of the broadcast: ${preview(recorded)}`,
      );
    },
  },
];
