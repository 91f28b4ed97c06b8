/**
 * adapter-inbox: the agent connector that reaches AI clients on their next turn. Record, then
 * offer: deliver() returns only after the message is a durable row in the inbox (SQLite,
 * synchronous=FULL); the hook runner later offers pending rows through the client's adapter and
 * marks delivered only the ids the adapter reports it rendered. Agents are the recipients the
 * adapters read (an adapter's config.recipient, default its instance name).
 *
 * The receipt's delivered_at is when the message was recorded (accepted for next-turn delivery),
 * not when a client read it: `patchbay adapter inbox <adapter>` shows what is still pending.
 */
import { randomUUID } from "node:crypto";
import { definePlugin, NotImplementedError, z } from "patchbay/plugin";
import type { AgentConnector, DeliveryPayload, WakeOpts } from "patchbay/plugin";
import { openInboxStore, type InboxStore } from "patchbay/adapter";

const config = z.strictObject({
  path: z.string().min(1).meta({
    path: true,
    description:
      "The inbox's SQLite file (relative to connectors.json); adapters name this instance in their config.inbox.",
  }),
  agents: z
    .array(z.string().min(1).max(200))
    .min(1)
    .refine((ids) => new Set(ids).size === ids.length, "agent ids must be unique")
    .default(["claude-code"])
    .meta({ description: "Recipients (adapter instance names, or their config.recipient) this inbox accepts." }),
});

/** Who sent it, as the host-filled meta says; never anything the payload body claims. */
function senderOf(payload: DeliveryPayload): string {
  return payload.meta.origin.caller_agent_id ?? payload.source_skill ?? payload.meta.origin.skill_name;
}

export default definePlugin({
  kind: "agent",
  config,
  create(cfg, ctx): AgentConnector {
    let store: InboxStore | null = null;
    const open = () => (store ??= openInboxStore(cfg.path));
    const known = new Set(cfg.agents);
    const assertAgent = (agent_id: string) => {
      if (!known.has(agent_id))
        throw new Error(`unknown agent ${JSON.stringify(agent_id)}; this inbox delivers to: ${cfg.agents.join(", ")}`);
    };

    return {
      async health_check() {
        try {
          open().counts(cfg.agents[0]);
          return true;
        } catch (err) {
          ctx.log.warn("inbox cannot be opened", { path: cfg.path, error: (err as Error).message });
          return false;
        }
      },

      async list_agents() {
        return cfg.agents.map((agent_id) => ({
          agent_id,
          capabilities: ["deliver", "augment", "template"] as ("deliver" | "augment" | "template")[],
        }));
      },

      async deliver(agent_id: string, payload: DeliveryPayload) {
        assertAgent(agent_id);
        const body = payload.kind === "augment" ? payload.content : payload.prompt;
        const recorded = open().record({
          agentId: agent_id,
          dispatchId: payload.meta.dispatch_id,
          from: senderOf(payload),
          type: payload.meta.event_type ?? payload.kind,
          subject: payload.delivery_context ?? null,
          body,
          sentAt: payload.meta.sent_at,
        });
        ctx.log.debug("recorded for next-turn delivery", { agent_id, id: recorded.id, duplicate: recorded.duplicate });
        return { delivered_at: recorded.recordedAt, delivery_id: recorded.id };
      },

      async wake(agent_id: string, opts: WakeOpts = {}) {
        // An inbox cannot start or interrupt a client: a wake is a message the client sees on its next turn.
        assertAgent(agent_id);
        const recorded = open().record({
          agentId: agent_id,
          dispatchId: `wake-${randomUUID()}`,
          from: "patchbay",
          type: "wake",
          subject: null,
          body: opts.context ?? "Another agent asked for your attention.",
          sentAt: Date.now(),
        });
        return { woken_at: recorded.recordedAt };
      },

      async request_response(): Promise<never> {
        throw new NotImplementedError("request_response");
      },

      async close() {
        store?.close();
        store = null;
      },
    };
  },
});
