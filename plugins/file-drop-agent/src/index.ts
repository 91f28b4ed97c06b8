/**
 * file-drop-agent: a delivery is one JSON file, `<dir>/<dispatch_id>.json`, holding the agent id,
 * the whole payload (the host-filled `meta` included) and `delivered_at`. A wake is a marker file,
 * `<dir>/wake-<agent>-<ts>.json`. Both are written to a hidden temp file and renamed, so a poller
 * that picks up `*.json` never reads half a file. Redelivering a dispatch_id replaces its file
 * (dispatch_id is the receiver's idempotency key, seed 000).
 */
import { randomBytes } from "node:crypto";
import { mkdir, open, readdir, readFile, rename, unlink } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { definePlugin, NotImplementedError, z, portableNameProblem } from "patchbay/plugin";
import type { AgentConnector, AgentStatus, DeliveryPayload, WakeOpts } from "patchbay/plugin";

const agentId = z.string().superRefine((value, issue) => {
  const problem = portableNameProblem(value);
  if (problem) issue.addIssue({ code: "custom", message: `agent id ${problem}` });
});

const config = z.strictObject({
  dir: z
    .string()
    .min(1)
    .meta({ path: true, description: "Folder the delivery and wake files are written to (created when needed)." }),
  agents: z
    .array(agentId)
    .min(1)
    .refine((ids) => new Set(ids).size === ids.length, "agent ids must be unique")
    .default(["default"])
    .meta({ description: "The agent ids this connector delivers to; list_agents() returns them." }),
});

/** What a delivery file holds. */
export interface DeliveryFile {
  type: "delivery";
  agent_id: string;
  delivered_at: number;
  payload: DeliveryPayload;
}

/** What a wake marker holds. */
export interface WakeFile {
  type: "wake";
  agent_id: string;
  woken_at: number;
  opts: WakeOpts;
}

export default definePlugin({
  kind: "agent",
  config,
  create(cfg, ctx): AgentConnector {
    const root = resolve(cfg.dir);
    const known = new Set(cfg.agents);

    function assertAgent(agent_id: string): void {
      if (!known.has(agent_id)) {
        throw new Error(
          `unknown agent ${JSON.stringify(agent_id)}; this connector delivers to: ${cfg.agents.join(", ")}`,
        );
      }
    }

    async function writeAtomic(file: string, data: unknown): Promise<void> {
      if (dirname(file) !== root) throw new Error(`refusing to write outside ${root}`);
      await mkdir(root, { recursive: true });
      const temp = join(root, `.${randomBytes(8).toString("hex")}.tmp`);
      const handle = await open(temp, "wx");
      try {
        try {
          await handle.writeFile(JSON.stringify(data, null, 2) + "\n", "utf8");
          await handle.sync();
        } finally {
          await handle.close();
        }
        await rename(temp, file);
      } catch (err) {
        await unlink(temp).catch(() => {});
        throw err;
      }
    }

    /** The files waiting in the folder for one agent. */
    async function waiting(agent_id: string): Promise<{ deliveries: number; wakes: number }> {
      let names: string[];
      try {
        names = await readdir(root);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "ENOENT") return { deliveries: 0, wakes: 0 };
        throw err;
      }
      let deliveries = 0;
      let wakes = 0;
      for (const name of names) {
        if (name.startsWith(".") || !name.endsWith(".json")) continue;
        let parsed: { type?: unknown; agent_id?: unknown };
        try {
          parsed = JSON.parse(await readFile(join(root, name), "utf8"));
        } catch {
          continue; // consumed meanwhile, or not ours
        }
        if (parsed?.agent_id !== agent_id) continue;
        if (parsed.type === "delivery") deliveries++;
        else if (parsed.type === "wake") wakes++;
      }
      return { deliveries, wakes };
    }

    return {
      async health_check() {
        const probe = join(root, `.patchbay-health-${randomBytes(6).toString("hex")}`);
        try {
          await mkdir(root, { recursive: true });
          const handle = await open(probe, "wx");
          await handle.close();
          await unlink(probe);
          return true;
        } catch (err) {
          ctx.log.warn("drop folder is not writable", { dir: root, error: (err as Error).message });
          return false;
        }
      },

      async list_agents() {
        return cfg.agents.map((id) => ({ agent_id: id }));
      },

      async deliver(agent_id: string, payload: DeliveryPayload) {
        assertAgent(agent_id);
        if (payload?.kind !== "augment" && payload?.kind !== "template") {
          throw new Error(
            `cannot deliver a payload of kind ${JSON.stringify((payload as { kind?: unknown })?.kind)}; file-drop-agent handles "augment" and "template"`,
          );
        }
        const dispatchId = payload.meta?.dispatch_id;
        const problem = portableNameProblem(dispatchId);
        if (problem) throw new Error(`invalid meta.dispatch_id ${JSON.stringify(dispatchId)}: ${problem}`);
        const delivered_at = Date.now();
        const file: DeliveryFile = { type: "delivery", agent_id, delivered_at, payload };
        await writeAtomic(join(root, `${dispatchId}.json`), file);
        ctx.log.debug("delivered", { agent_id, dispatch_id: dispatchId, kind: payload.kind });
        return { delivered_at, delivery_id: dispatchId };
      },

      async wake(agent_id: string, opts: WakeOpts = {}) {
        assertAgent(agent_id);
        const woken_at = Date.now();
        const marker: WakeFile = { type: "wake", agent_id, woken_at, opts };
        await writeAtomic(join(root, `wake-${agent_id}-${woken_at}.json`), marker);
        return { woken_at };
      },

      async request_response(): Promise<never> {
        throw new NotImplementedError("request_response");
      },

      async agent_status(agent_id: string): Promise<AgentStatus> {
        assertAgent(agent_id);
        const { deliveries, wakes } = await waiting(agent_id);
        // Seed 001's closed set: files still waiting mean the agent has not picked them up.
        if (deliveries + wakes > 0) ctx.log.debug("files waiting", { agent_id, deliveries, wakes });
        return deliveries + wakes > 0 ? "asleep" : "idle";
      },
    };
  },
});
