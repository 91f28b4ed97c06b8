/**
 * Starts servers/demo-mcp-http.mjs (a real MCP SDK server over Streamable HTTP) as a child
 * process on 127.0.0.1 and waits for its `LISTENING <port>` line. A port just released can take a
 * moment to be bindable again, so a fixed-port restart retries on EADDRINUSE.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";

export const STDIO_SERVER = fileURLToPath(new URL("../../../servers/demo-mcp.mjs", import.meta.url));
const HTTP_SERVER = fileURLToPath(new URL("../../../servers/demo-mcp-http.mjs", import.meta.url));

export interface DemoServer {
  proc: ChildProcess;
  port: number;
  url: string;
  stop(): Promise<void>;
}

export async function startDemoHttp(port = 0, extraArgs: string[] = []): Promise<DemoServer> {
  for (let attempt = 0; ; attempt++) {
    const proc = spawn(process.execPath, [HTTP_SERVER, String(port), ...extraArgs], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    proc.stderr!.on("data", (d) => (stderr += d));
    try {
      const listening = await new Promise<number>((resolve, reject) => {
        let out = "";
        proc.stdout!.on("data", (d) => {
          out += d;
          const m = /LISTENING (\d+)/.exec(out);
          if (m) resolve(Number(m[1]));
        });
        proc.once("exit", (code) => reject(new Error(`demo-mcp-http exited (${code}): ${stderr}`)));
        setTimeout(() => reject(new Error("demo-mcp-http did not start in 10 s")), 10_000).unref();
      });
      const stop = async () => {
        if (proc.exitCode !== null || proc.signalCode !== null) return;
        const exited = once(proc, "exit");
        proc.kill("SIGKILL");
        await exited;
      };
      return { proc, port: listening, url: `http://127.0.0.1:${listening}/mcp`, stop };
    } catch (err) {
      proc.kill("SIGKILL");
      if (attempt < 30 && /EADDRINUSE/.test(String(err))) {
        await new Promise((r) => setTimeout(r, 100));
        continue;
      }
      throw err;
    }
  }
}

/** A port nothing listens on: bind one, note it, release it. */
export async function deadPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  const port = (s.address() as AddressInfo).port;
  await new Promise((resolve) => s.close(resolve));
  return port;
}
