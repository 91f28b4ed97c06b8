/**
 * The hook payload from stdin, for both hook paths (hook-fast.ts and commands/hook.ts). Imports
 * nothing, so the fast path stays slim.
 */

/** A client's payload is a JSON event; anything larger than this is refused (and the hook fails open). */
export const MAX_PAYLOAD_BYTES = 16 * 1024 * 1024;

/** The whole of stdin; a terminal counts as no payload (a human ran the command by hand). */
export function readStdin(): Promise<string> {
  if (process.stdin.isTTY) return Promise.resolve("");
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    process.stdin.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_PAYLOAD_BYTES) {
        process.stdin.destroy();
        reject(new Error(`the payload is larger than ${MAX_PAYLOAD_BYTES} bytes`));
      } else chunks.push(chunk);
    });
    process.stdin.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    process.stdin.on("error", reject);
  });
}

export function write(stream: NodeJS.WriteStream, text: string): Promise<void> {
  return new Promise((resolve) => stream.write(text, () => resolve()));
}
