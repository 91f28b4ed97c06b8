/**
 * Trusts hooks the way a user's Codex does, through Codex's own app-server (JSON-RPC over stdio):
 * `hooks/list` gives each hook's key and current content hash, `config/batchWrite` records
 * `hooks.state."<key>".trusted_hash` in CODEX_HOME/config.toml. Only hooks whose command contains
 * `commandPart` are trusted. Returns the keys it trusted.
 */
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

interface ListedHook {
  key: string;
  command: string | null;
  currentHash: string;
  trustStatus: string;
}

export async function trustCodexHooks(
  bin: string,
  env: Record<string, string>,
  cwd: string,
  commandPart: string,
): Promise<string[]> {
  const child = spawn(bin, ["app-server"], { cwd, env, stdio: ["pipe", "pipe", "ignore"] });
  const pending = new Map<number, (v: { result?: unknown; error?: unknown }) => void>();
  createInterface({ input: child.stdout }).on("line", (line) => {
    try {
      const msg = JSON.parse(line) as { id?: number; result?: unknown; error?: unknown };
      if (typeof msg.id === "number") pending.get(msg.id)?.(msg);
    } catch {
      // a log line
    }
  });
  let next = 0;
  const call = (method: string, params: unknown) =>
    new Promise<unknown>((resolve, reject) => {
      const id = ++next;
      pending.set(id, (m) =>
        m.error ? reject(new Error(`${method}: ${JSON.stringify(m.error)}`)) : resolve(m.result),
      );
      child.stdin.write(JSON.stringify({ id, method, params }) + "\n");
    });
  try {
    await call("initialize", { clientInfo: { name: "patchbay-test", version: "1.0.0" } });
    child.stdin.write(JSON.stringify({ method: "initialized" }) + "\n");
    const listed = (await call("hooks/list", { cwds: [cwd] })) as { data: { hooks: ListedHook[] }[] };
    const ours = listed.data
      .flatMap((d) => d.hooks)
      .filter((h) => h.command?.includes(commandPart) && h.trustStatus !== "trusted");
    if (ours.length > 0) {
      const value = Object.fromEntries(ours.map((h) => [h.key, { trusted_hash: h.currentHash }]));
      await call("config/batchWrite", { edits: [{ keyPath: "hooks.state", mergeStrategy: "upsert", value }] });
    }
    return ours.map((h) => h.key);
  } finally {
    child.kill();
  }
}
