/**
 * The decision step of a hook run, given a normalized event and the capabilities that are
 * effective for the installed client: guards may deny a tool call (rendered by the adapter's
 * denyOutcome), context capabilities may inject pending peer messages (rendered by renderContext,
 * then injectOutcome), lifecycle capabilities notify the adapter. Only effective capabilities
 * act; a declared-but-uncertified one is reported, never used.
 */
import path from "node:path";
import { pbError } from "../errors.js";
import type {
  CapabilityShape,
  GuardDecision,
  HookOutcome,
  NormalizedEvent,
  RenderResult,
} from "../adapter-sdk/contract.js";
import { openInboxStore, type InboxStore } from "../adapter-sdk/inbox.js";
import { capabilityOn } from "./certification.js";
import { INJECTION, LIFECYCLE } from "./decide-tables.js";
import type { AdapterSession } from "./session.js";

export const ALLOW: HookOutcome = Object.freeze({ stdout: "", stderr: "", exitCode: 0 });

export interface Decision {
  decision: "allow" | "deny" | "inject";
  outcome: HookOutcome;
  /** Why this decision (a fact, never payload text). */
  note: string;
  /** Ids the adapter reported rendered whole: mark them delivered once the outcome is written. */
  deliver: { store: InboxStore; recipient: string; ids: string[] } | null;
}

type Call = <T>(method: string, args: unknown[]) => Promise<T>;

const GUARDS: { key: string; method: string; needsTargets: boolean }[] = [
  { key: "guards.beforeWrite", method: "guardWrite", needsTargets: true },
  { key: "guards.beforeShell", method: "guardShell", needsTargets: false },
  { key: "guards.beforeRead", method: "guardRead", needsTargets: false },
];

export async function decide(
  session: AdapterSession,
  event: NormalizedEvent,
  effective: CapabilityShape,
  call: Call,
): Promise<Decision> {
  const life = LIFECYCLE[event.kind];
  if (life && capabilityOn(effective, life.key)) await call(life.method, [event]);

  if (event.kind === "beforeTool") {
    for (const guard of GUARDS) {
      if (!capabilityOn(effective, guard.key) || (guard.needsTargets && event.targets.length === 0)) continue;
      const verdict = await call<GuardDecision>(guard.method, [event]);
      if (verdict.decision === "deny") {
        const reason =
          verdict.reason?.trim() || `Patchbay's ${guard.key} guard denied this ${event.tool ?? "tool"} call.`;
        return {
          decision: "deny",
          outcome: await call<HookOutcome>("denyOutcome", [reason, event]),
          note: `${guard.key} denied`,
          deliver: null,
        };
      }
    }
    const declared =
      event.targets.length > 0 &&
      capabilityOn(session.manifest.capabilities, "guards.beforeWrite") &&
      !capabilityOn(effective, "guards.beforeWrite");
    return {
      decision: "allow",
      outcome: ALLOW,
      note: declared ? "unguarded: guards.beforeWrite is not certified for this client" : "no guard objected",
      deliver: null,
    };
  }

  const injection = INJECTION[event.kind];
  if (!injection) return { decision: "allow", outcome: ALLOW, note: `nothing to do for ${event.kind}`, deliver: null };
  if (!capabilityOn(effective, injection) || !capabilityOn(effective, "delivery.nextTurn")) {
    return {
      decision: "allow",
      outcome: ALLOW,
      note: `${injection} and delivery.nextTurn are not both effective`,
      deliver: null,
    };
  }
  if (!session.standard.inbox) return { decision: "allow", outcome: ALLOW, note: "no inbox configured", deliver: null };

  const store = openInboxStore(inboxPath(session), { busyTimeoutMs: 1_000 });
  const recipient = session.standard.recipient ?? session.name;
  let keepOpen = false;
  try {
    const messages = store.pending(recipient);
    if (messages.length === 0) return { decision: "allow", outcome: ALLOW, note: "no pending messages", deliver: null };
    const budgetBytes = session.standard.context_budget_bytes;
    const rendered = await call<RenderResult>("renderContext", [
      { messages },
      { budgetBytes, readCommand: `patchbay adapter inbox ${session.name} --message` },
    ]);
    checkRendered(
      session,
      rendered,
      messages.map((m) => m.id),
      budgetBytes,
    );
    if (rendered.text === "")
      return {
        decision: "allow",
        outcome: ALLOW,
        note: `${messages.length} pending, none fit the budget`,
        deliver: null,
      };
    const outcome = await call<HookOutcome>("injectOutcome", [rendered.text, event]);
    keepOpen = rendered.includedMessageIds.length > 0;
    return {
      decision: "inject",
      outcome,
      note: `offered ${rendered.includedMessageIds.length} of ${messages.length} pending`,
      deliver: keepOpen ? { store, recipient, ids: rendered.includedMessageIds } : null,
    };
  } finally {
    if (!keepOpen) store.close();
  }
}

/** The adapter's report is checked before anything is marked: only offered ids, within budget. */
function checkRendered(session: AdapterSession, rendered: RenderResult, offered: string[], budgetBytes: number): void {
  const foreign = rendered.includedMessageIds.filter((id) => !offered.includes(id));
  const size = Buffer.byteLength(rendered.text, "utf8");
  if (foreign.length > 0 || size > budgetBytes) {
    throw pbError(
      "PB_ERR_CONTRACT_VIOLATION",
      `${session.id}.renderContext() broke its contract: ${foreign.length > 0 ? `reported ids it was not offered (${foreign.length})` : `rendered ${size} bytes for a budget of ${budgetBytes}`}.`,
      { instance: session.id, method: "renderContext" },
    );
  }
}

/** The SQLite file of the adapter-inbox instance named by the standard `inbox` key. */
export function inboxPath(session: Pick<AdapterSession, "id" | "config" | "standard">): string {
  const ref = session.standard.inbox!;
  const inst = session.config.instances.find((i) => i.id === (session.config.aliases[ref] ?? ref));
  const file = inst?.config.path;
  if (!inst || typeof file !== "string" || file === "") {
    throw pbError(
      "PB_ERR_INBOX_NOT_CONFIGURED",
      `${session.id}: config.inbox names ${ref}, which is not an instance with a "path" (an adapter-inbox instance).`,
      { instance: session.id, inbox: ref },
    );
  }
  return path.resolve(session.config.dir, file);
}
