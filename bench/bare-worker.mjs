// The floor of a worker start: a thread that only says it is up.
import { parentPort } from "node:worker_threads";

parentPort.postMessage("up");
