import { definePlugin, z } from "patchbay/plugin";

export default definePlugin({
  kind: "mcp",
  config: z.object({}),
  create: () => ({
    health_check: async () => true,
    list_tools: async () => [{ name: "echo" }],
    call: async (_tool, args) => args,
  }),
});
