/**
 * The resources and prompts handlers of one client's SDK server, answering through the shared
 * PassthroughRoutes (resources.ts) within the client's view: what it sees, the refusal of what it
 * does not, and the audit record of each read and get that reaches an instance.
 */
import {
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ReadResourceRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { pbError } from "../errors.js";
import type { AuditedRun } from "./audit/requests.js";
import { withinQuota, type Admit } from "./clients/gate.js";
import { ALL, type PassthroughRoutes, type Sees } from "./resources.js";
import { protocolError } from "./rpc-errors.js";
import { jsonBytes } from "./tool-results.js";

/**
 * Registers the resources and prompts handlers on one client's server (for the capabilities it was
 * offered); returns the owner lookup the subscription handlers use. Each handler waits for the boot.
 */
export function registerPassthrough(
  server: Server,
  routes: PassthroughRoutes,
  offers: { resources: boolean; prompts: boolean },
  booted: () => Promise<void>,
  listWait: () => Promise<void>,
  view: View = { sees: ALL, refuse: (what) => new Error(`unreachable: ${what}`) },
): (uri: string) => Promise<string | undefined> {
  // The SDK refuses a handler for a capability the server does not announce.
  if (offers.resources) registerResources(server, routes, booted, listWait, view);
  if (offers.prompts) registerPrompts(server, routes, booted, listWait, view);
  return async (uri) => {
    await booted();
    return routes.ownerOf(uri);
  };
}

/** One client's view: what it sees whole, and the refusal of what it does not (the caller's code and id). */
export interface View {
  sees: Sees;
  refuse: (what: string) => Error;
  /** Records each read and get that reaches an instance (audit/requests.ts); absent: nothing recorded. */
  audited?: AuditedRun;
  /** Takes a slot of the caller's quota for a read or a get (clients/gate.ts); a refused one reaches nothing. */
  admit?: Admit;
}

const UNAUDITED: AuditedRun = (_kind, _name, _session, _bytes, run) => run(() => undefined);

function registerResources(
  server: Server,
  routes: PassthroughRoutes,
  booted: () => Promise<void>,
  listWait: () => Promise<void>,
  view: View,
): void {
  server.setRequestHandler(ListResourcesRequestSchema, async () => {
    await listWait();
    return { resources: await routes.listResources(view.sees) } as never;
  });
  const audited = view.audited ?? UNAUDITED;
  server.setRequestHandler(ReadResourceRequestSchema, async (req, extra) => {
    await booted();
    // withinQuota makes any failure the client's JSON-RPC error (a quota refusal stays as it is).
    const { uri } = req.params;
    const refuse = () => view.refuse(`resource ${uri.slice(0, 200)}`);
    if (view.sees !== ALL && (await routes.outOfView(uri, view.sees))) throw protocolError(refuse());
    return (await withinQuota(view.admit, () =>
      audited("resource", uri, extra.sessionId, Buffer.byteLength(uri), (reached) =>
        routes.readResource(uri, view.sees, refuse, reached),
      ),
    )) as never;
  });
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => {
    await listWait();
    return { resourceTemplates: await routes.listTemplates(view.sees) } as never;
  });
}

function registerPrompts(
  server: Server,
  routes: PassthroughRoutes,
  booted: () => Promise<void>,
  listWait: () => Promise<void>,
  view: View,
): void {
  server.setRequestHandler(ListPromptsRequestSchema, async () => {
    await listWait();
    return { prompts: await routes.listPrompts(view.sees) } as never;
  });
  const audited = view.audited ?? UNAUDITED;
  server.setRequestHandler(GetPromptRequestSchema, async (req, extra) => {
    await booted();
    const route = await routes.promptRoute(req.params.name);
    if (view.sees !== ALL && (!route || route instanceof Error || !view.sees(route.instance)))
      throw protocolError(view.refuse(`prompt "${req.params.name.slice(0, 200)}"`));
    if (route instanceof Error) throw protocolError(route, ErrorCode.InvalidParams);
    if (!route)
      throw protocolError(
        pbError(
          "PB_ERR_GATEWAY_PROMPT_UNKNOWN",
          `No prompt ${req.params.name.slice(0, 200)} on this gateway (its connector may be unhealthy or not exposed).`,
          { prompt: req.params.name.slice(0, 200) },
        ),
        ErrorCode.InvalidParams,
      );
    const args = req.params.arguments;
    return (await withinQuota(view.admit, () =>
      audited("prompt", req.params.name, extra.sessionId, args ? jsonBytes(args) : 0, (reached) => {
        reached(route.instance);
        return routes.getPrompt(route, args);
      }),
    )) as never;
  });
}
