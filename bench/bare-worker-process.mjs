// The floor `npm start` is measured against: a node process that starts one bare worker, waits
// for it to say it is up, and exits.
import { Worker } from "node:worker_threads";

const w = new Worker(new URL("./bare-worker.mjs", import.meta.url));
w.once("message", () => void w.terminate());
