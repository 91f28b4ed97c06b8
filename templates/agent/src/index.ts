/**
 * __NAME__: an agent connector plugin for Patchbay.
 *
 * As scaffolded it works end to end: each configured agent has an inbox in this worker's
 * memory; deliver() queues the payload, wake() records a wake, request_response() answers at
 * once with an acknowledgement that echoes the correlation id, agent_status() says "active"
 * while an inbox holds something. Each place you change to reach your agents (a tmux pane, a
 * webhook, a chat thread, a named pipe) is marked "SUBSTRATE:".
 *
 * The host fills payload.meta (dispatch_id, sent_at, origin) on every delivery: read it, never
 * build it. It refuses a receipt dated before its dispatch and a reply that does not echo the
 * request's correlation_id.
 */
import { definePlugin, portableNameProblem, z } from "patchbay/plugin";
import type {
  AgentConnector,
  AgentDescriptor,
  AgentResponse,
  AgentStatus,
  DeliveryPayload,
  DeliveryReceipt,
  RequestResponseOpts,
  WakeOpts,
  WakeReceipt,
} from "patchbay/plugin";

const agentId = z.string().superRefine((value, issue) => {
  const problem = portableNameProblem(value);
  if (problem) issue.addIssue({ code: "custom", message: `agent id ${problem}` });
});

// SUBSTRATE: your substrate's settings (a webhook URL, a tmux socket, a token marked
// .meta({ secret: true })). Defaults keep the two-line connectors.json entry bootable.
const config = z.strictObject({
  agents: z
    .array(agentId)
    .min(1)
    .refine((ids) => new Set(ids).size === ids.length, "agent ids must be unique")
    .default(["default"])
    .meta({ description: "The agents this connector reaches; list_agents() returns them." }),
  inbox_limit: z
    .number()
    .int()
    .positive()
    .default(1000)
    .meta({ description: "Deliveries kept per agent; the oldest are dropped first." }),
});

interface Delivery {
  payload: DeliveryPayload;
  delivered_at: number;
}

export default definePlugin({
  kind: "agent",
  config,
  create(cfg, ctx): AgentConnector {
    // SUBSTRATE: replace these inboxes with your delivery mechanism.
    const inboxes = new Map<string, Delivery[]>(cfg.agents.map((id) => [id, []]));

    function inboxOf(agent_id: string): Delivery[] {
      const inbox = inboxes.get(agent_id);
      if (!inbox)
        throw new Error(`unknown agent ${JSON.stringify(agent_id)}; this connector reaches: ${cfg.agents.join(", ")}`);
      return inbox;
    }

    async function deliver(agent_id: string, payload: DeliveryPayload): Promise<DeliveryReceipt> {
      // SUBSTRATE: hand the payload to the agent ("augment" carries content, "template" a prompt).
      // meta.dispatch_id is the receiver's idempotency key: a redelivery of one id replaces it.
      const inbox = inboxOf(agent_id);
      const again = inbox.findIndex((d) => d.payload.meta.dispatch_id === payload.meta.dispatch_id);
      if (again !== -1) inbox.splice(again, 1);
      const delivered_at = Date.now();
      inbox.push({ payload, delivered_at });
      if (inbox.length > cfg.inbox_limit) inbox.splice(0, inbox.length - cfg.inbox_limit);
      ctx.log.info("delivered", { agent_id, kind: payload.kind, dispatch_id: payload.meta.dispatch_id });
      return { delivered_at, delivery_id: payload.meta.dispatch_id };
    }

    return {
      async health_check() {
        // SUBSTRATE: check that your substrate is reachable (quickly: boot waits for it).
        return true;
      },

      async list_agents(): Promise<AgentDescriptor[]> {
        // SUBSTRATE: list the agents your substrate knows, if it can tell.
        return cfg.agents.map((agent_id) => ({ agent_id, capabilities: ["deliver", "wake", "augment", "template"] }));
      },

      deliver,

      async wake(agent_id: string, opts: WakeOpts = {}): Promise<WakeReceipt> {
        // SUBSTRATE: wake the agent now, or schedule it for opts.when (unix ms); opts.context says why.
        inboxOf(agent_id);
        ctx.log.info("wake", { agent_id, when: opts.when ?? "immediate" });
        return { woken_at: Date.now() };
      },

      async request_response(
        agent_id: string,
        payload: DeliveryPayload,
        opts: RequestResponseOpts,
      ): Promise<AgentResponse> {
        // SUBSTRATE: deliver, then wait for the agent's reply (until ctx.signal aborts, or
        // opts.timeout_ms); the reply must carry opts.correlation_id. Agents that cannot answer
        // may `throw new NotImplementedError("request_response")` instead.
        const asked = payload.kind === "augment" ? payload.content : payload.prompt;
        await deliver(agent_id, payload);
        return { correlation_id: opts.correlation_id, content: `received: ${asked}`, responded_at: Date.now() };
      },

      async agent_status(agent_id: string): Promise<AgentStatus> {
        // SUBSTRATE: pure metadata; the host never gates delivery on it.
        const inbox = inboxes.get(agent_id);
        if (!inbox) return "unknown";
        return inbox.length > 0 ? "active" : "idle";
      },
    };
  },
});
