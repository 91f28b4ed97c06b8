/**
 * `patchbay`: the embedder's API. Named exports only: adding a symbol here makes it public.
 */
export { createHost, type CreateHostOptions } from "./host/host.js";
export { Host, type AgentClient, type BootReport, type CallOptions, type InstanceReport } from "./host/api.js";
/** A traced host.call's context and the plugin span records it gets back (CallOptions.trace). */
export type { CallTrace, SpanRecord, SpanAttributeValue } from "./contract/span-records.js";
export type { ProgressUpdate } from "./rpc/client.js";
export type { InstanceCapabilities } from "./registry/capabilities.js";
export type { BroadcastBranch, BroadcastResult } from "./registry/broadcast.js";
export type { DeliveryRecord, ReceiptFilter } from "./registry/receipts.js";
export { CATALOGUE, EXIT, PatchbayError, isPatchbayError, type ErrorCode, type WireError } from "./errors.js";
export { KINDS, SECTION_OF_KIND, type Kind, type Section } from "./contract/kinds.js";
export { PLUGIN_API_VERSION, type Manifest } from "./contract/manifest.js";
export { definePlugin, NotImplementedError, z, type PluginContext, type PluginDefinition } from "./plugin.js";
export { defineAdapter } from "./adapter-sdk/index.js";
export type * from "./contract/types.js";
