// The connectors.json the gateway benches serve: one mcp-remote instance in front of a stdio MCP
// server, health checks far apart so they never land inside a measurement.
import { writeFileSync } from "node:fs";
import path from "node:path";

/** Writes `<dir>/connectors.json` with the one instance `name`; returns its path. */
export function oneServerConfig(dir, name, command, args) {
  const file = path.join(dir, "connectors.json");
  writeFileSync(
    file,
    JSON.stringify({
      plugins: [],
      defaults: { health_interval_ms: 600000 },
      mcpConnectors: { [name]: { plugin: "mcp-remote", config: { command, args } } },
    }),
  );
  return file;
}
