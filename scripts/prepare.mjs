// `prepare` (run by `npm ci` / `npm install` in this folder): builds dist/ so a fresh clone runs.
// `npm pack` and `npm publish` run `prepare` too, right after `prepack` has built: skip that second build.
import { execSync } from "node:child_process";

if (process.env.npm_command === "pack" || process.env.npm_command === "publish") process.exit(0);
execSync("npm run build", { stdio: "inherit" });
