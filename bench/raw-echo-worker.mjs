// Baseline: the cheapest possible request/response over a MessagePort, for the ratio.
import { parentPort } from "node:worker_threads";

parentPort.once("message", ({ port }) => {
  port.on("message", (msg) => port.postMessage({ id: msg.id, value: msg.args }));
  parentPort.postMessage("ready");
});
