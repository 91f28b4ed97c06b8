// The least a stdio MCP gateway can do, for the gateway bench's floor: spawn the server, and pass
// each line both ways, parsed and written again (any gateway must read a message to route it), with
// the tool's gateway name turned back into the server's. No checks, no boundary, no instances: what
// `serve --mcp` costs above this proxy is Patchbay's own work; what this proxy costs above a direct
// client is the extra process hop, which depends on the machine more than on any code.
//
// With --thread the server's pipes are read and written by a worker thread, and every message
// crosses a MessagePort on its way, as a call to a connector in its default thread isolation does:
// the floor of that isolation (the thread hop alone, with nothing of Patchbay on either side).
// Usage: node forward-proxy.mjs [--thread] <prefix> <server command> [args...]
import { spawn } from "node:child_process";
import { Worker, isMainThread, parentPort, workerData } from "node:worker_threads";

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

/** Spawns the server; returns its write; each line it answers goes to `onMessage` parsed. */
function server(command, args, onMessage, onExit) {
  const child = spawn(command, args, { stdio: ["pipe", "pipe", "ignore"] });
  lines(child.stdout, (line) => onMessage(JSON.parse(line)));
  child.on("exit", onExit);
  return { write: (msg) => child.stdin.write(`${JSON.stringify(msg)}\n`), kill: () => child.kill() };
}

if (isMainThread) {
  const thread = process.argv[2] === "--thread";
  const [prefix, command, ...args] = process.argv.slice(thread ? 3 : 2);
  const answer = (msg) => process.stdout.write(`${JSON.stringify(msg)}\n`);
  let upstream;
  if (thread) {
    // The thread owns the server; a message is structured-cloned across the port each way.
    const worker = new Worker(new URL(import.meta.url), { workerData: { command, args } });
    worker.on("message", answer);
    worker.on("exit", () => process.exit(0));
    upstream = { write: (msg) => worker.postMessage(msg), kill: () => worker.terminate() };
  } else upstream = server(command, args, answer, () => process.exit(0));
  lines(process.stdin, (line) => {
    const msg = JSON.parse(line);
    if (typeof msg.params?.name === "string" && msg.params.name.startsWith(prefix))
      msg.params.name = msg.params.name.slice(prefix.length);
    upstream.write(msg);
  });
  process.stdin.on("end", () => upstream.kill());
} else {
  const { command, args } = workerData;
  const upstream = server(
    command,
    args,
    (msg) => parentPort.postMessage(msg),
    () => process.exit(0),
  );
  parentPort.on("message", (msg) => upstream.write(msg));
}
