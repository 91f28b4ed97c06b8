/**
 * A TCP relay to PostgreSQL on 127.0.0.1 that a test can take down (every connection cut) and bring
 * back on its port: a database that goes away while a serve runs, and comes back.
 */
import net from "node:net";

export async function tcpProxy(target: URL): Promise<{ port: number; down(): Promise<void>; up(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  let server: net.Server | null = null;
  let port = 0;
  const up = () =>
    new Promise<void>((resolve, reject) => {
      server = net.createServer((inbound) => {
        const outbound = net.connect(Number(target.port || 5432), target.hostname);
        for (const s of [inbound, outbound]) {
          sockets.add(s);
          s.on("error", () => undefined);
          s.on("close", () => sockets.delete(s));
        }
        inbound.pipe(outbound).pipe(inbound);
        inbound.on("close", () => outbound.destroy());
        outbound.on("close", () => inbound.destroy());
      });
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => {
        port = (server!.address() as net.AddressInfo).port;
        resolve();
      });
    });
  const down = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      if (!server) return resolve();
      server.close(() => resolve());
      server = null;
    });
  await up();
  return {
    get port() {
      return port;
    },
    down,
    up,
  };
}
