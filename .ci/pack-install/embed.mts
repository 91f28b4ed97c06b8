// An embedder's program, as an adopter writes it: TypeScript, checked with strict tsc
// (skipLibCheck false, so Patchbay's shipped .d.ts are checked too), compiled and run.
import { createHost, isPatchbayError, type Host, type PortableMemory } from "patchbay-host";

const host: Host = await createHost({ config: "connectors.json" });
try {
  const skills = host.skills("primary");
  await skills.write("pack-install", "# written by the embedder check\n");
  const names: string[] = await skills.list();
  if (!names.includes("pack-install")) throw new Error(`skills.list() lacks pack-install: ${names.join(", ")}`);
  const found: PortableMemory[] = await host.memory("primary").query({ query: "anything", limit: 5, mode: "fts" });
  const ready = host.report().instances.filter((i) => i.state === "ready").length;
  console.log(`embed ok: ${ready} instances ready, ${names.length} skills, ${found.length} memories`);
} catch (err) {
  console.error(isPatchbayError(err) ? `${err.code}: ${err.message}` : err);
  process.exitCode = 1;
} finally {
  await host.close();
}
