/**
 * A tool whose execution requires task augmentation (MCP 2025-11-25 tasks, `execution.taskSupport:
 * "required"`) is called through the SDK's experimental tasks API: the server answers at once with
 * a task, the SDK polls it, and the final tools/call result comes back as if the call had been
 * plain. Task status messages become progress for the caller. When the caller gives up (the
 * host's deadline or cancel), the task is cancelled on the server (tasks/cancel), best effort.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { CallToolResultSchema, type CallToolRequest, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { PluginContext } from "patchbay/plugin";
import type { RequestOpts } from "./connection.js";

export async function callAsTask(
  client: Client,
  params: CallToolRequest["params"],
  opts: RequestOpts,
  ctx: PluginContext,
  report: (p: { progress: number; message?: string }) => void,
): Promise<CallToolResult> {
  let taskId: string | undefined;
  let step = 0;
  const cancel = () => {
    if (taskId) client.experimental.tasks.cancelTask(taskId, { timeout: 2_000 }).catch(() => {});
  };
  opts.signal.addEventListener("abort", cancel, { once: true });
  try {
    for await (const m of client.experimental.tasks.callToolStream(params, CallToolResultSchema, {
      ...opts,
      task: {},
    })) {
      if (m.type === "taskCreated") {
        taskId = m.task.taskId;
        ctx.log.debug("tool runs as a task", { tool: params.name, task: taskId });
      } else if (m.type === "taskStatus") {
        report({ progress: ++step, ...(m.task.statusMessage ? { message: m.task.statusMessage } : {}) });
      } else if (m.type === "result") {
        return m.result as CallToolResult;
      } else if (m.type === "error") {
        throw m.error;
      }
    }
    throw new Error(`tools/call "${params.name}": the task ended without a result`);
  } finally {
    opts.signal.removeEventListener("abort", cancel);
  }
}
