/**
 * `patchbay/adapter`: the adapter authoring API, an entry of its own so `patchbay/plugin` stays
 * the small API every kind shares: defineAdapter, the normalized-event builder, the peer-message
 * projection, the guard and detect helpers, the inbox store, and the contract's types.
 * An adapter plugin imports `z` and `definePlugin`-level things from `patchbay/plugin`, the rest from here.
 */
export { defineAdapter } from "./define-adapter.js";
export {
  STANDARD_ADAPTER_CONFIG,
  type AdapterDefinition,
  type AdapterInstance,
  type AdapterMethods,
  type DefinedAdapter,
  type StandardAdapterConfig,
} from "./define.js";
export { validateAdapter } from "./validate.js";
export { normalizedEvent, type EventFields } from "./event.js";
export { projectContext, escapePeerText, PEER_FENCE } from "./render.js";
export { canonicalPath, detectFromProbe, guardProtected, isInside, shellQuote } from "./helpers.js";
export { additionalContextOutcome, permissionDenyOutcome } from "./outcomes.js";
export {
  hookEvents,
  jsonHookProtocol,
  writeToolTargets,
  type JsonHookProtocol,
  type JsonHookProtocolSpec,
} from "./hook-protocol.js";
export {
  JSON_HOOKS_CAPABILITIES,
  jsonHooksAdapter,
  type JsonHooksAdapterSpec,
  type JsonHooksMethods,
} from "./json-hooks-adapter.js";
export {
  hookSettingsMerge,
  notWiredDiagnostic,
  readSettingsHooks,
  unwiredHooks,
  type WiredHook,
} from "./hook-settings.js";
export {
  MODEL_APIS,
  type CertifyDriver,
  type CertifyRunSpec,
  type CertifyWorld,
  type ModelApi,
  type StubCall,
} from "./certify-driver.js";
export { openInboxStore, type InboxDelivery, type InboxStore, type StoredMessage } from "./inbox.js";
export {
  ADAPTER_CAPABILITIES,
  EVENT_KINDS,
  type AdapterEnv,
  type AdapterManifest,
  type Artifact,
  type CapabilityDeclaration,
  type CapabilityShape,
  type ClientProbe,
  type DetectResult,
  type Diagnostic,
  type DoctorResult,
  type EventKind,
  type GuardDecision,
  type HookOutcome,
  type Inactive,
  type InstallPlan,
  type NormalizedEvent,
  type PeerMessage,
  type RenderInput,
  type RenderOptions,
  type RenderResult,
  type TrustResult,
} from "./contract.js";
