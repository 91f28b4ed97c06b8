// The connectors.json the gateway benches serve: one mcp-remote instance in front of a stdio MCP
// server, health checks far apart so they never land inside a measurement.
import { writeFileSync } from "node:fs";
import path from "node:path";

/**
 * Writes `<dir>/connectors.json` with the one instance `name`; returns its path. `isolation` is
 * the instance's "isolation" (absent: the default, "thread"; "host": the bundled mcp-remote on the
 * host's own thread). A serve keeps its state next to the file: one folder per config.
 */
export function oneServerConfig(dir, name, command, args, isolation) {
  const file = path.join(dir, "connectors.json");
  writeFileSync(
    file,
    JSON.stringify({
      plugins: [],
      defaults: { health_interval_ms: 600000 },
      mcpConnectors: {
        [name]: { plugin: "mcp-remote", ...(isolation ? { isolation } : {}), config: { command, args } },
      },
    }),
  );
  return file;
}
