/**
 * What an adapter tells `patchbay adapter certify` about driving its real client offline: which
 * model API the client speaks (the host serves a stub of it on 127.0.0.1), every hook event the
 * client declares, how to write the client's config into a throwaway world, and the scripted model
 * turn. The host owns the rest (stub, capture hook, spawning, evidence), so certifying a new client
 * needs no change outside its plugin. The driver module is loaded in the host (jiti), once per run:
 * it may import node builtins only.
 */

/** The model APIs the host can stub: Anthropic Messages, the Responses API, generateContent. */
export const MODEL_APIS = ["messages", "responses", "generate-content"] as const;
export type ModelApi = (typeof MODEL_APIS)[number];

/** The throwaway world of one certification run (every path absolute, under `root`). */
export interface CertifyWorld {
  root: string;
  /** HOME for the client: its user-level config goes here. */
  home: string;
  /** The working folder of the turn. */
  project: string;
  /** A folder the adapter protects for the run; the script tries to write `protectedFile` in it. */
  protectedDir: string;
  protectedFile: string;
  /** Wire every event as `${hookCommand} ${Event}`. */
  hookCommand: string;
  /** The model API stub's base URL, `http://127.0.0.1:PORT` (no path). */
  stubUrl: string;
  /** The client binary being certified. */
  bin: string;
}

/** How to run one turn: the process the host spawns (stdin closed), and its whole environment. */
export interface CertifyRunSpec {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  timeoutMs?: number;
}

/** One request the stub received. */
export interface StubCall {
  body: Record<string, unknown>;
  text: string;
  /** Path and query, e.g. "/v1/responses". */
  path: string;
}

export interface CertifyDriver {
  api: ModelApi;
  /** Every hook event the client declares: all are wired, so every firing is captured. */
  events: readonly string[];
  /** Events at which a payload naming a path inside `protectedDir` gets the adapter's deny. */
  denyEvents: readonly string[];
  /** Writes the client's config (hooks, the stub as its model provider) and says how to run the turn. */
  prepare(world: CertifyWorld): CertifyRunSpec;
  /**
   * The scripted model: the answer to each request, in the stub API's own step vocabulary
   * (messages: `{type:"tool_use",name,input}`; responses: `{type:"function_call",name,arguments}` or
   * `{type:"custom_tool_call",name,input}`; generate-content: `{type:"function_call",name,args}`;
   * all: `{type:"text",text}`); null = plain text.
   */
  script(world: CertifyWorld): (req: StubCall, index: number) => unknown[] | null;
}
