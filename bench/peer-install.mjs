// The peer proxies the gateway bench measures against, installed for the bench only: never project
// dependencies (they would ship in no package, but `npm ci` would still fetch them for every
// contributor and CI run). They go to a cache folder outside the repository, pinned exactly, and
// are installed once per pair of versions.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

export const PEERS = { "mcp-hub": "4.2.1", "mcp-proxy": "6.7.19", supergateway: "4.0.0" };

/** The peers' bin paths by package name, or null (with the reason printed) when npm could not install them. */
export async function ensurePeers() {
  const tag = Object.entries(PEERS)
    .map(([name, version]) => `${name}-${version}`)
    .join("_");
  const dir = process.env.PATCHBAY_BENCH_PEERS_DIR ?? path.join(os.homedir(), ".cache", "patchbay-bench-peers", tag);
  const bins = () =>
    Object.fromEntries(
      Object.keys(PEERS).map((name) => {
        const pkgDir = path.join(dir, "node_modules", name);
        const pkg = JSON.parse(readFileSync(path.join(pkgDir, "package.json"), "utf8"));
        const bin = typeof pkg.bin === "string" ? pkg.bin : pkg.bin[name];
        return [name, path.join(pkgDir, bin)];
      }),
    );
  if (Object.keys(PEERS).every((name) => existsSync(path.join(dir, "node_modules", name, "package.json"))))
    return bins();
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, "package.json"), JSON.stringify({ private: true, dependencies: PEERS }, null, 2));
  console.error(`peers: installing ${tag.replaceAll("_", ", ")} into ${dir} (once)`);
  try {
    execFileSync("npm", ["install", "--no-audit", "--no-fund", "--ignore-scripts", "--save-exact"], {
      cwd: dir,
      stdio: ["ignore", "ignore", "inherit"],
    });
    return bins();
  } catch (err) {
    console.error(`peers: npm install failed in ${dir}: ${err.message.split("\n")[0]}`);
    return null;
  }
}
