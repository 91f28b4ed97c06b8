// For the conformance run only: the official suite cannot send a bearer token, so this proxy adds
// `Authorization: Bearer $PATCHBAY_TOKEN` and forwards everything else unchanged (Host and Origin
// included, so the gateway's DNS-rebinding checks still see what the suite sent). Streams both ways.
import http from "node:http";

const [listenPort, targetPort] = process.argv.slice(2).map(Number);
const token = process.env.PATCHBAY_TOKEN;
const server = http.createServer((req, res) => {
  const upstream = http.request(
    {
      host: "127.0.0.1",
      port: targetPort,
      method: req.method,
      path: req.url,
      headers: { ...req.headers, authorization: `Bearer ${token}` },
    },
    (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    },
  );
  upstream.on("error", () => (res.headersSent ? res.end() : res.writeHead(502).end()));
  res.on("close", () => upstream.destroy());
  req.pipe(upstream);
});
server.listen(listenPort, "127.0.0.1", () => console.error(`auth proxy on ${listenPort} -> ${targetPort}`));
