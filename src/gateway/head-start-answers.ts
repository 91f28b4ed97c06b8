/**
 * What the next start's head start (gateway/stdio-front.ts) may answer before its CLI has loaded:
 * this start's initialize answer and tool list, under a stamp of the config file and environment
 * they were built from, so a changed config is never answered from them; how many worker threads
 * this boot started, which the next start (the same config) warms while its CLI loads; and the
 * stdio servers its mcp-remote instances spawned, which those threads start (spawn/prespawn.ts).
 */
import { readFileSync } from "node:fs";
import { SUPPORTED_PROTOCOL_VERSIONS, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { packageVersion } from "../paths.js";
import { describeCapabilities, type Offers } from "./offers.js";
import type { PrespawnSpec } from "../contract/rpc.js";
import { frontStamp, type FrontAnswers } from "./stdio-front.js";
import { savedPrespawns } from "./stdio-prespawn.js";

export const INSTRUCTIONS =
  "Patchbay gateway: each tool name says which instance it reaches (<instance>__<tool> for MCP connectors, memory__/skills__/agents__<instance>__<method> for the others).";

/** The answers for `file` (read now, for its stamp); undefined when it cannot be read. */
export function headStartAnswers(
  file: string,
  stampKey: Buffer,
  offers: Offers,
  tools: Tool[],
  threads: number,
  spawns: readonly PrespawnSpec[] = [],
): FrontAnswers | undefined {
  try {
    const stamp = frontStamp(file, readFileSync(file, "utf8"), process.env, stampKey);
    return {
      stamp,
      protocolVersions: [...SUPPORTED_PROTOCOL_VERSIONS],
      initialize: {
        capabilities: describeCapabilities(offers).capabilities,
        serverInfo: { name: "patchbay", version: packageVersion() },
        instructions: INSTRUCTIONS,
      },
      tools,
      threads,
      prespawn: savedPrespawns(stampKey, stamp, spawns),
    };
  } catch {
    return undefined;
  }
}
