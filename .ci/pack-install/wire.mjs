// Wires every scaffolded plugin into connectors.json, with the entry `plugin new --json` printed.
import { readFileSync, writeFileSync } from "node:fs";

const file = "connectors.json";
const config = JSON.parse(readFileSync(file, "utf8"));
for (const doc of process.argv.slice(2).map((f) => JSON.parse(readFileSync(f, "utf8")))) {
  for (const [section, instances] of Object.entries(doc.connectors_entry))
    config[section] = { ...config[section], ...instances };
}
writeFileSync(file, JSON.stringify(config, null, 2) + "\n");
