// The least a stdio MCP gateway can do, for the gateway bench's floor: spawn the server, and pass
// each line both ways, parsed and written again (any gateway must read a message to route it), with
// the tool's gateway name turned back into the server's. No checks, no boundary, no instances: what
// `serve --mcp` costs above this proxy is Patchbay's own work; what this proxy costs above a direct
// client is the extra process hop, which depends on the machine more than on any code.
// Usage: node forward-proxy.mjs <prefix> <server command> [args...]
import { spawn } from "node:child_process";

const [prefix, command, ...args] = process.argv.slice(2);
const server = spawn(command, args, { stdio: ["pipe", "pipe", "ignore"] });

function lines(stream, onLine) {
  let rest = "";
  stream.setEncoding("utf8");
  stream.on("data", (chunk) => {
    const text = rest + chunk;
    let from = 0;
    for (let nl = text.indexOf("\n"); nl >= 0; nl = text.indexOf("\n", from)) {
      onLine(text.slice(from, nl));
      from = nl + 1;
    }
    rest = text.slice(from);
  });
}

lines(process.stdin, (line) => {
  const msg = JSON.parse(line);
  if (typeof msg.params?.name === "string" && msg.params.name.startsWith(prefix))
    msg.params.name = msg.params.name.slice(prefix.length);
  server.stdin.write(`${JSON.stringify(msg)}\n`);
});
lines(server.stdout, (line) => process.stdout.write(`${JSON.stringify(JSON.parse(line))}\n`));
process.stdin.on("end", () => server.kill());
server.on("exit", () => process.exit(0));
