/**
 * noop-agent: the agent connector to wire when there is no agent substrate yet. Every delivery
 * and wake is logged and acknowledged; deliveries say `delivery_skipped: true` so dashboards and
 * receipts show that nothing reached an agent (the seed's NoOpAgentConnector, made visible).
 */
import { definePlugin, NotImplementedError, z } from "patchbay/plugin";
import type { AgentConnector, DeliveryPayload, WakeOpts } from "patchbay/plugin";

const config = z.strictObject({
  agents: z
    .array(z.string().min(1))
    .min(1)
    .default(["default"])
    .meta({ description: "The agent ids list_agents() reports." }),
});

export default definePlugin({
  kind: "agent",
  config,
  create(cfg, ctx): AgentConnector {
    const known = new Set(cfg.agents);
    const warnIfUnknown = (agent_id: string) => {
      if (!known.has(agent_id))
        ctx.log.warn("agent id is not in this connector's list", { agent_id, agents: cfg.agents });
    };

    return {
      async health_check() {
        return true;
      },

      async list_agents() {
        return cfg.agents.map((id) => ({ agent_id: id }));
      },

      async deliver(agent_id: string, payload: DeliveryPayload) {
        warnIfUnknown(agent_id);
        ctx.log.info("delivery skipped (noop-agent)", {
          agent_id,
          kind: payload?.kind,
          dispatch_id: payload?.meta?.dispatch_id,
          skill_name: payload?.meta?.origin?.skill_name,
        });
        return { delivered_at: Date.now(), delivery_skipped: true };
      },

      async wake(agent_id: string, opts?: WakeOpts) {
        warnIfUnknown(agent_id);
        ctx.log.info("wake ignored (noop-agent)", { agent_id, context: opts?.context });
        return { woken_at: Date.now() };
      },

      async request_response(): Promise<never> {
        throw new NotImplementedError("request_response");
      },
    };
  },
});
