/**
 * What `patchbay/plugin` offers adapter authors, in one place (plugin.ts re-exports this list):
 * defineAdapter, the normalized-event builder, the peer-message projection, the guard and detect
 * helpers, the inbox store, and the contract's types.
 */
export { defineAdapter, validateAdapter, STANDARD_ADAPTER_CONFIG, type AdapterDefinition, type AdapterInstance, type AdapterMethods, type DefinedAdapter, type StandardAdapterConfig } from "./adapter-define.js";
export { normalizedEvent, type EventFields } from "./adapter-event.js";
export { projectContext, escapePeerText, PEER_FENCE } from "./adapter-render.js";
export { canonicalPath, detectFromProbe, guardProtected, isInside, shellQuote } from "./adapter-helpers.js";
export { openInboxStore, type InboxDelivery, type InboxStore, type StoredMessage } from "./inbox.js";
export {
  ADAPTER_CAPABILITIES, EVENT_KINDS,
  type AdapterEnv, type AdapterManifest, type Artifact, type CapabilityDeclaration, type CapabilityShape, type ClientProbe,
  type DetectResult, type Diagnostic, type DoctorResult, type EventKind, type GuardDecision, type HookOutcome, type InstallPlan,
  type NormalizedEvent, type PeerMessage, type RenderInput, type RenderOptions, type RenderResult,
} from "./adapter.js";
