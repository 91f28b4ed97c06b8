#!/usr/bin/env node
// The `patchbay` (and `patchbay-host`) command. The CLI is compiled to dist/ and bundled into
// dist/cli-bundle/ by `npm run build` (scripts/bundle-cli.mjs): `prepack` builds it into the
// published package, `prepare` on `npm ci` in a clone.
import { existsSync } from "node:fs";
import module from "node:module";
import { fileURLToPath } from "node:url";

// Node 22.1+ keeps V8's compiled code of the CLI's modules on disk (in the OS temp folder, or
// NODE_COMPILE_CACHE; NODE_DISABLE_COMPILE_CACHE=1 turns it off), so a start after the first skips
// most parsing and compiling. Older Node lacks the function: the CLI starts as before.
module.enableCompileCache?.();

// Every worker thread from the first (boot and serve start some before the CLI loads), so that the
// CLI can end them before it exits (src/cli/threads-at-exit.ts).
const threads = new Set();
process.on("worker", (worker) => {
  threads.add(worker);
  worker.once("exit", () => threads.delete(worker));
});
const main = new URL("../dist/cli-bundle/main.js", import.meta.url);
if (!existsSync(fileURLToPath(main))) {
  process.stderr.write(
    "error PB_ERR_INTERNAL: Patchbay is not built (dist/cli-bundle/main.js is missing).\n  hint: run `npm run build` (or `npm ci`, which builds) in the Patchbay folder.\n",
  );
  process.exit(1);
}
// `boot` starts worker threads now, so they load the worker runtime on the other cores while this
// one loads the CLI and reads the config (src/spawn/warm-threads.ts). Not `serve`: there the host's
// own thread (the gateway's load, then a client's initialize) and the upstream servers are what a
// client waits for, and warm threads took CPU from both (measured: a first start's initialize
// answered ~170 ms later, and no earlier first tools/call over HTTP).
if (process.argv[2] === "boot") {
  const { availableParallelism } = await import("node:os");
  const warm = await import(new URL("../dist/spawn/warm-threads.js", import.meta.url).href);
  warm.prestartThreads(Math.min(availableParallelism(), 4));
}
// A serve's V8 heaps are kept near what they hold, in every thread:
// - The young generation stays at V8's starting size (semi-spaces of 1 MiB) instead of growing to
//   16 MiB each under load and keeping them: a gateway's garbage is short-lived messages. Measured
//   on `serve --http` fronting server-everything (bench/peers.mjs): ~14 MiB less resident memory
//   after load. The cost is CPU under concurrency only: with 64 calls in flight the host's thread
//   spends ~35 µs per call in scavenges (~10 with semi-spaces of 8 MiB, --trace-gc), one call at a
//   time ~7 µs (~3).
// - The old generation's growing factor is 1.5, where V8 picks up to 4 by itself: under load the
//   requests in flight survive scavenges and are promoted, and the host's heap grew from ~13 to
//   ~33 MiB before its first full collection. Measured as above, resident memory after load:
//   Node 20 99-102 against 112-119 MiB, Node 22 128 against 152-154, Node 24 135 against 153-159;
//   for one or two more full collections (~5-10 ms each) per 6,400 calls.
// V8 reads both flags each time it sizes a space, so setting them now works. Node puts V8's flags
// back as they were given on its command line whenever a worker thread starts (measured on Node
// 20: after the first instance's thread, the young generation grew to 8 MiB semi-spaces again), so
// the flags are set once more as each thread comes online.
if (process.argv[2] === "serve") {
  const v8 = await import("node:v8");
  const keepHeapsSmall = () => {
    v8.setFlagsFromString("--semi-space-growth-factor=1");
    v8.setFlagsFromString("--heap-growing-percent=50");
  };
  keepHeapsSmall();
  process.on("worker", (worker) => worker.once("online", keepHeapsSmall));
}
// A client hook first tries the fast path (src/cli/hook-fast.ts), which loads a fraction of the CLI.
if (process.argv[2] === "hook") {
  const code = await (await import(new URL("../dist/cli/hook-fast.js", import.meta.url).href)).hookMain(
    process.argv.slice(2),
  );
  if (code !== null) {
    process.exitCode = code;
    await new Promise((resolve) => process.stdout.write("", resolve));
    process.exit(code);
  }
}
// `serve --mcp` answers initialize and tools/list from the last boot while the CLI loads (src/gateway/stdio-front.ts).
// When it did, the client no longer waits for this thread but for the boot: the threads the last
// boot of this config started are warmed on the other cores while this one loads the CLI (measured:
// a first tools/call ~30 ms sooner on 2 cores), one core left to the CLI and the upstream servers.
// The stdio servers that boot's mcp-remote instances spawned start first, from this thread, and the
// first of those threads take them (src/spawn/held-server.ts): the first call waits for such a
// server's own start.
if (process.argv[2] === "serve" && process.argv.includes("--mcp")) {
  const front = await import(new URL("../dist/gateway/stdio-front.js", import.meta.url).href);
  const quieted = front.startFront(process.argv.slice(2));
  const orders = front.frontPrespawns();
  const { availableParallelism } = await import("node:os");
  const cores = availableParallelism() - 1;
  const threads = async () => await import(new URL("../dist/spawn/warm-threads.js", import.meta.url).href);
  // Those that start a server start now: the client's lists are answered in the meantime, and
  // each millisecond waited for them is one more before the server the first call needs is up.
  const early = Math.min(orders.length, cores);
  if (early > 0) (await threads()).prestartThreads(early, orders);
  const rest = Math.min(await quieted, cores) - early;
  if (rest > 0) (await threads()).prestartThreads(rest);
}
// `serve --http` has no head start, but the first tools/call of a client waits for the same
// upstream start: the stdio servers the last boot of this config spawned (checked as above) start
// now, each taken by a thread of its own, and nothing else is warmed (warm threads alone took CPU from the CLI's
// load and moved no first call sooner over HTTP).
else if (process.argv[2] === "serve" && process.argv.includes("--http")) {
  const front = await import(new URL("../dist/gateway/stdio-front.js", import.meta.url).href);
  const orders = front.savedPrespawnOrders(process.argv.slice(2), process.env);
  const { availableParallelism } = await import("node:os");
  const early = Math.min(orders.length, availableParallelism() - 1);
  if (early > 0)
    (await import(new URL("../dist/spawn/warm-threads.js", import.meta.url).href)).prestartThreads(early, orders);
}
const { runMain } = await import(main.href);
await runMain(process.argv.slice(2), threads);
