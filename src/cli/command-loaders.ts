/**
 * Each declared command's module, loaded on use: `patchbay --help`, `--version` and `hook` (run on
 * every client hook) never load the host, zod or the MCP SDK. Only dispatch (main.ts) imports this
 * file; the table (commands.ts) stays free of the modules that read it. Keyed by the command's name
 * in the table; tests/cli/command-loaders.test.ts holds the two to the same names.
 */
import { pbError } from "../errors.js";
import type { Command, CommandDecl } from "./commands.js";

export const COMMAND_LOADERS: Readonly<Record<string, () => Promise<Command>>> = {
  boot: async () => (await import("./commands/boot.js")).bootCommand,
  serve: async () => (await import("./commands/serve.js")).serveCommand,
  status: async () => (await import("./commands/status.js")).statusCommand,
  audit: async () => (await import("./commands/audit.js")).auditCommand,
  "pins diff": async () => (await import("./commands/pins.js")).pinsDiffCommand,
  "pins accept": async () => (await import("./commands/pins.js")).pinsAcceptCommand,
  "client add": async () => (await import("./commands/client.js")).clientAddCommand,
  "client list": async () => (await import("./commands/client.js")).clientListCommand,
  "client revoke": async () => (await import("./commands/client.js")).clientRevokeCommand,
  init: async () => (await import("./commands/init.js")).initCommand,
  doctor: async () => (await import("./commands/doctor.js")).doctorCommand,
  list: async () => (await import("./commands/list.js")).listCommand,
  call: async () => (await import("./commands/call.js")).callCommand,
  hook: async () => (await import("./commands/hook.js")).hookCommand,
  "plugin new": async () => (await import("./commands/plugin-new.js")).pluginNewCommand,
  "plugin test": async () => (await import("./commands/plugin-test.js")).pluginTestCommand,
  "adapter install": async () => (await import("./commands/adapter.js")).adapterInstallCommand,
  "adapter uninstall": async () => (await import("./commands/adapter.js")).adapterUninstallCommand,
  "adapter doctor": async () => (await import("./commands/adapter.js")).adapterDoctorCommand,
  "adapter inbox": async () => (await import("./commands/adapter.js")).adapterInboxCommand,
  "adapter certify": async () => (await import("./commands/adapter.js")).adapterCertifyCommand,
  help: async () => (await import("./help.js")).helpCommand,
};

/** The module of a declared command; a declaration without a loader is Patchbay's bug, not the user's. */
export async function loadCommand(decl: CommandDecl): Promise<Command> {
  const load = Object.hasOwn(COMMAND_LOADERS, decl.name) ? COMMAND_LOADERS[decl.name] : undefined;
  if (!load) throw pbError("PB_ERR_INTERNAL", `patchbay ${decl.name} is declared but has no module to load.`);
  return await load();
}
