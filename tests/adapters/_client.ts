/** Runs a real AI client to completion (stdin closed), bounded; the real-client tests share it. */
import { spawn } from "node:child_process";

export function runClient(
  command: string,
  args: string[],
  cwd: string,
  env: Record<string, string>,
  timeoutMs = 150_000,
): Promise<{ exitCode: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout = (stdout + d.toString()).slice(-20_000)));
    child.stderr.on("data", (d: Buffer) => (stderr = (stderr + d.toString()).slice(-8000)));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ exitCode: code, stdout, stderr });
    });
  });
}
