// The balancer side of bench/scale-out.mjs: HAProxy running a block of docs/deployment.md, and
// the small process helpers the replicas share with it.
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** The `haproxy` block of docs/deployment.md marked `# patchbay: <mode>`, with our bind and servers. */
export function haproxyConfig(mode, lbPort, ports) {
  const doc = readFileSync(path.join(ROOT, "docs", "deployment.md"), "utf8");
  const block = [...doc.matchAll(/^```haproxy\n([\s\S]*?)^```/gm)]
    .map((m) => m[1])
    .find((b) => b.startsWith(`# patchbay: ${mode}\n`));
  if (!block) throw new Error(`docs/deployment.md has no haproxy block marked "# patchbay: ${mode}"`);
  const lines = block
    .split("\n")
    .filter((l) => !/^\s*server\s/.test(l))
    .map((l) => (/^\s*bind\s/.test(l) ? `  bind 127.0.0.1:${lbPort}` : l));
  const servers = ports.map((p, i) => `  server r${i + 1} 127.0.0.1:${p}`);
  return [...lines.filter((l) => l.trim() !== ""), ...servers, ""].join("\n");
}

/** HAProxy in the foreground with that config; resolves once it answers /status through the frontend. */
export async function startHaproxy({ bin, mode, ports, token, dir }) {
  const lbPort = await freePort();
  const cfg = path.join(dir, `haproxy-${mode}.cfg`);
  writeFileSync(cfg, haproxyConfig(mode, lbPort, ports));
  const proc = spawn(bin, ["-db", "-f", cfg], {
    env: { PATH: process.env.PATH ?? "", PATCHBAY_TOKEN: token },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let log = "";
  proc.stdout.on("data", (d) => (log += d));
  proc.stderr.on("data", (d) => (log += d));
  const base = `http://127.0.0.1:${lbPort}`;
  for (let i = 0; ; i++) {
    if (proc.exitCode !== null) throw new Error(`haproxy exited ${proc.exitCode}:\n${log}`);
    const ok = await fetch(`${base}/status`, { headers: { Authorization: `Bearer ${token}` } }).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (i > 300) throw new Error(`haproxy did not answer on ${base}:\n${log}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url: `${base}/mcp`, base, proc, log: () => log, stop: () => stopProc(proc) };
}

export function stopProc(proc, signal = "SIGTERM") {
  return new Promise((resolve) => {
    if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
    proc.once("exit", () => resolve());
    proc.kill(signal);
  });
}
