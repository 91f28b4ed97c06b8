// One table on purpose, over 300 lines: split by area it would hide a reused or near-duplicate code.
/**
 * The one error catalogue. Every error a user can meet has a stable PB_ERR_* code, a hint that
 * says what to do, and the exit slot the CLI maps it to. Codes are never reused once retired;
 * docs/errors.md is kept in sync by tests/docs/errors-doc.test.ts. A new code is one entry here
 * (appended to its area, or at the end) and its section in docs/errors.md; the error class and the
 * wire form are the other files of errors/.
 */
import { EXIT, type ExitCode } from "./exit.js";

interface CatalogueEntry {
  /** What kind of failure this is, in a few words. */
  readonly title: string;
  /** What the user should do about it. */
  readonly hint: string;
  readonly exit: ExitCode;
  /** Whether the same call may succeed if simply tried again later (a substrate back up, a timeout). */
  readonly retryable: boolean;
}

const entry = (title: string, hint: string, exit: ExitCode, retryable = false): CatalogueEntry => ({
  title,
  hint,
  exit,
  retryable,
});

export const CATALOGUE = Object.freeze({
  // --- usage ---
  PB_ERR_USAGE: entry("bad command line", "Run `patchbay --help` for the commands and their flags.", EXIT.USAGE),
  // --- plugin authoring (plugin new, plugin test) ---
  PB_ERR_SCAFFOLD_NAME: entry(
    "the plugin name is not a portable id",
    "Use lower-case letters, digits, '.', '_' and '-', starting with a letter (at most 64 characters, no path separators), e.g. github-issues.",
    EXIT.USAGE,
  ),
  PB_ERR_SCAFFOLD_KIND: entry(
    "there is no template for this kind",
    "Use one of the kinds named in the message: `patchbay plugin new <kind> <name>`.",
    EXIT.USAGE,
  ),
  PB_ERR_SCAFFOLD_EXISTS: entry(
    "the plugin folder already exists",
    "Nothing was changed. Pick another name, pass --dir to create it elsewhere, or move the existing folder away first.",
    EXIT.USAGE,
  ),
  PB_ERR_PLUGIN_NOT_FOUND: entry(
    "no plugin by that name or path",
    "Pass a plugin folder (one holding plugin.json) or the name of a plugin in a folder connectors.json scans; `patchbay list` shows them.",
    EXIT.USAGE,
  ),
  PB_ERR_PLUGIN_TEST_FIXTURE: entry(
    "the plugin's test.config.json is invalid",
    'Make test.config.json a JSON object with "config" (a config the plugin accepts, with a healthy substrate) and "invalidConfig" (one the schema accepts whose substrate is broken, or null with "invalidConfigReason"); adapters take "config" and optionally "clientVersionOutput".',
    EXIT.USAGE,
  ),
  // --- config ---
  PB_ERR_CONFIG_NOT_FOUND: entry(
    "connectors.json not found",
    "Pass --config FILE, set PATCHBAY_CONFIG, or create connectors.json in this folder or a parent.",
    EXIT.USAGE,
  ),
  PB_ERR_CONFIG_PARSE: entry(
    "connectors.json is not valid JSON",
    "Fix the JSON syntax at the position named in the message.",
    EXIT.USAGE,
  ),
  PB_ERR_CONFIG_INVALID: entry(
    "connectors.json does not match its schema",
    "Fix each key named by its JSON pointer; schemas/connectors.schema.json lists every allowed key.",
    EXIT.USAGE,
  ),
  PB_ERR_CONFIG_ENV_MISSING: entry(
    "environment variables are not set",
    "Export each variable named, or give a default with ${VAR:-default}.",
    EXIT.USAGE,
  ),
  PB_ERR_CONFIG_ALIAS: entry(
    "an alias does not resolve to an instance",
    "Point the alias at an instance defined in the same section, and make sure aliases do not form a cycle.",
    EXIT.USAGE,
  ),
  PB_ERR_CONFIG_UNKNOWN_PLUGIN: entry(
    "an instance names a plugin that was not found",
    'Use one of the plugins listed, or add the plugin\'s folder to "plugins" in connectors.json.',
    EXIT.USAGE,
  ),
  PB_ERR_CONFIG_WRONG_KIND: entry(
    "an instance uses a plugin of the wrong kind for its section",
    "Move the instance to the section of the plugin's kind, or pick a plugin of this section's kind.",
    EXIT.USAGE,
  ),
  PB_ERR_INSTANCE_CONFIG_INVALID: entry(
    "an instance's config does not match its plugin's schema",
    "Fix the fields named under the instance's \"config\"; the plugin's README lists its options.",
    EXIT.USAGE,
  ),
  PB_ERR_INSTANCE_NOT_FOUND: entry(
    "no such instance",
    "Use a section/name that connectors.json defines; `patchbay list` shows them.",
    EXIT.USAGE,
  ),
  // --- plugin load ---
  PB_ERR_PLUGIN_MANIFEST_INVALID: entry(
    "plugin.json is invalid",
    "Fix plugin.json; schemas/plugin.schema.json describes every field.",
    EXIT.PLUGIN_LOAD,
  ),
  PB_ERR_PLUGIN_DUPLICATE: entry(
    "two plugin folders declare the same name",
    'Rename one plugin or remove one of the folders from "plugins".',
    EXIT.PLUGIN_LOAD,
  ),
  PB_ERR_PLUGIN_ENTRY_ESCAPE: entry(
    "a plugin's entry points outside its folder",
    'Make "entry" a relative path inside the plugin folder (no "..", no absolute path, no symlink out).',
    EXIT.PLUGIN_LOAD,
  ),
  PB_ERR_PLUGIN_API_MISMATCH: entry(
    "the plugin needs a plugin API this host does not provide",
    "Upgrade the side named in the message: the host (npm i patchbay-host@latest) or the plugin.",
    EXIT.PLUGIN_LOAD,
  ),
  PB_ERR_PLUGIN_LOAD_FAILED: entry(
    "the plugin could not be loaded",
    "Fix the error in the plugin's entry module; its default export must be definePlugin({...}).",
    EXIT.PLUGIN_LOAD,
  ),
  PB_ERR_PLUGIN_START_TIMEOUT: entry(
    "the plugin's worker did not become ready in time",
    "Make the plugin's create() finish quickly; move slow work into health_check or the first call.",
    EXIT.PLUGIN_LOAD,
    true,
  ),
  // --- boot and health ---
  PB_ERR_BOOT_FAILED: entry(
    "the host could not boot",
    "Fix every failure listed; `patchbay doctor` shows each with its fix.",
    EXIT.UNHEALTHY,
  ),
  PB_ERR_HEALTH_FAILED: entry(
    "a required instance is unhealthy",
    'Make the instance\'s substrate reachable, or mark it "required": false to boot degraded.',
    EXIT.UNHEALTHY,
    true,
  ),
  PB_ERR_HEALTH_TIMEOUT: entry(
    "a health check did not answer in time",
    "Make the substrate answer faster, or raise defaults.health_timeout_ms.",
    EXIT.UNHEALTHY,
    true,
  ),
  // --- the boundary ---
  PB_ERR_METHOD_UNKNOWN: entry(
    "the method is not part of the kind's contract",
    "Call one of the contract methods listed in the message.",
    EXIT.UNHEALTHY,
  ),
  PB_ERR_METHOD_UNDECLARED: entry(
    "the optional method is not declared by the plugin",
    'Add the method to "capabilities" in plugin.json (and implement it), or do not call it.',
    EXIT.UNHEALTHY,
  ),
  PB_ERR_TOOL_DENIED: entry(
    "the tool is not in the instance's allowed_tools",
    "Add the tool to allowed_tools in connectors.json, or call an allowed tool.",
    EXIT.UNHEALTHY,
  ),
  PB_ERR_GRANT_DENIED: entry(
    "the plugin called an instance it was not granted",
    'List the instance in the plugin\'s "requires" and grant it in the instance\'s "grants".',
    EXIT.UNHEALTHY,
  ),
  PB_ERR_GRANT_BUSY: entry(
    "the plugin has too many calls to other instances in flight",
    "Await the plugin's earlier ctx.connectors calls before making more (at most 256 in flight per instance).",
    EXIT.UNHEALTHY,
  ),
  PB_ERR_CONTRACT_ARGS: entry(
    "the call's arguments do not match the contract",
    "Fix the arguments named in the message.",
    EXIT.UNHEALTHY,
  ),
  PB_ERR_CONTRACT_VIOLATION: entry(
    "the plugin returned a result that breaks its contract",
    "Fix the plugin so its result matches the contract named in the message.",
    EXIT.UNHEALTHY,
  ),
  PB_ERR_NAME_INVALID: entry(
    "the name is not allowed",
    "Use a name of letters, digits, '.', '_' and '-', without path separators, '..' or control characters.",
    EXIT.UNHEALTHY,
  ),
  PB_ERR_CALL_TIMEOUT: entry(
    "the call did not finish before its deadline",
    "Raise timeout_ms for the instance, or make the substrate answer faster.",
    EXIT.UNHEALTHY,
    true,
  ),
  PB_ERR_CALL_CANCELLED: entry(
    "the caller withdrew the call before it finished",
    "Nothing to fix: the caller's AbortSignal aborted (a gateway client cancelled or went away); the plugin was told to stop.",
    EXIT.UNHEALTHY,
  ),
  PB_ERR_PLUGIN_THREW: entry(
    "the plugin's method threw an error (a bug in the plugin, or an error it did not classify)",
    "Read the plugin's message (run with --verbose for its stack, in its own source); a plugin signals a down substrate with unavailable() from patchbay/plugin.",
    EXIT.UNHEALTHY,
  ),
  PB_ERR_FS_NOT_GRANTED: entry(
    "the isolated plugin touched a path its plugin.json permissions.fs does not grant",
    'Add the path named in the message (or a folder holding it, or ${config.<field>} when the path comes from the instance\'s config) to "permissions": {"fs": [...]} in the plugin\'s plugin.json; relative entries resolve against connectors.json\'s folder (docs/isolation.md).',
    EXIT.UNHEALTHY,
  ),
  PB_ERR_NOT_IMPLEMENTED: entry(
    "the plugin does not implement this method",
    "Use another connector for this method, or implement it in the plugin.",
    EXIT.UNHEALTHY,
  ),
  PB_ERR_TOOL_ERROR: entry(
    "the MCP tool reported an error",
    "Read the tool's message and fix the arguments or the server.",
    EXIT.UNHEALTHY,
  ),
  PB_ERR_PLUGIN_CRASHED: entry(
    "the plugin's worker died",
    "Check the plugin's log lines; the instance is restarted on the next call unless it keeps crashing.",
    EXIT.UNHEALTHY,
    true,
  ),
  PB_ERR_INSTANCE_UNAVAILABLE: entry(
    "the instance is not available",
    "Run `patchbay doctor` to see why the instance is degraded or failed.",
    EXIT.UNHEALTHY,
  ),
  PB_ERR_CIRCUIT_OPEN: entry(
    "the instance crashed too often and was stopped",
    "Fix the crash named in the logs, then restart the host.",
    EXIT.UNHEALTHY,
  ),
  PB_ERR_HOST_CLOSED: entry("the host is closed", "Create a new host with createHost().", EXIT.UNHEALTHY),
  PB_ERR_INTERNAL: entry(
    "Patchbay hit an internal error",
    "Run again with --verbose and report the output.",
    EXIT.UNHEALTHY,
  ),
  // --- connector contracts (memory modes and filters, agent broadcast) ---
  PB_ERR_MODE_UNDECLARED: entry(
    "the memory store does not declare this query mode",
    'Use one of the modes named in the message, or add the mode to "modes" in the plugin\'s plugin.json (and implement it).',
    EXIT.UNHEALTHY,
  ),
  PB_ERR_FILTER_UNDECLARED: entry(
    "the memory store does not declare this query filter",
    'Drop the filter, or add the key to "filters" in the plugin\'s plugin.json (and implement it): undeclared filters are refused, never silently ignored.',
    EXIT.UNHEALTHY,
  ),
  PB_ERR_AGENT_NOT_FOUND: entry(
    "no agent connector lists this agent",
    "Use an agent id that an agent connector's list_agents() returns (`patchbay list --live` shows them), or configure a connector for it.",
    EXIT.UNHEALTHY,
  ),
  // --- adapters (hook runner, install, inbox) ---
  PB_ERR_ADAPTER_MANIFEST_INVALID: entry(
    "an adapter's defineAdapter() manifest is invalid",
    "Fix the key named in the message in the adapter's defineAdapter({...}); docs/adapters.md lists every capability and the methods it needs.",
    EXIT.PLUGIN_LOAD,
  ),
  PB_ERR_ADAPTER_UNKNOWN: entry(
    "no such adapter instance",
    'Use an instance name from the "adapters" section of connectors.json; `patchbay list` shows them.',
    EXIT.USAGE,
  ),
  PB_ERR_HOOK_PAYLOAD_INVALID: entry(
    "the hook payload is not one the adapter recognises",
    "Check that the client's hook calls `patchbay hook <adapter> <event>` for an event the adapter maps; the hook failed open.",
    EXIT.UNHEALTHY,
  ),
  PB_ERR_HOOK_TIMEOUT: entry(
    "the hook did not finish within its time bound",
    "Raise hook_timeout_ms in the adapter instance's config (or PATCHBAY_HOOK_TIMEOUT_MS), or make the adapter faster; the hook failed open.",
    EXIT.UNHEALTHY,
  ),
  PB_ERR_INSTALL_PLAN_INVALID: entry(
    "the adapter's install plan is invalid",
    "Fix the adapter's planInstall(): artifacts need absolute paths inside the home, project or state folder, and must not overlap.",
    EXIT.UNHEALTHY,
  ),
  PB_ERR_INSTALL_CONFLICT: entry(
    "a path the install would write is not Patchbay's",
    "Move or remove the file named in the message (or uninstall first), then install again.",
    EXIT.UNHEALTHY,
  ),
  PB_ERR_INSTALL_RECORD_CORRUPT: entry(
    "the install record cannot be read",
    "Nothing was changed. Fix or remove the install record named in the message; without it uninstall cannot tell what Patchbay owns.",
    EXIT.UNHEALTHY,
  ),
  PB_ERR_INSTALL_RUNNER_MISSING: entry(
    "refusing to install: the hook runner does not exist",
    "Run `npm run build` in the Patchbay folder so bin/patchbay.mjs and dist/cli-bundle/main.js exist, then install again.",
    EXIT.UNHEALTHY,
  ),
  PB_ERR_INBOX_NOT_CONFIGURED: entry(
    "the adapter has no inbox",
    'Set "inbox" in the adapter instance\'s config to an adapter-inbox instance, e.g. "agentConnectors/inbox".',
    EXIT.USAGE,
  ),
  PB_ERR_INBOX_MESSAGE_NOT_FOUND: entry(
    "no such message in the inbox",
    "List the pending messages with `patchbay adapter inbox <adapter>` and use one of their ids.",
    EXIT.USAGE,
  ),
  // --- the gateway, live health and hot reload ---
  PB_ERR_GATEWAY_TOOL_UNKNOWN: entry(
    "the gateway has no tool by that name",
    "List the tools again (tools/list): the tool's instance may be unhealthy or not exposed in connectors.json's gateway section.",
    EXIT.UNHEALTHY,
  ),
  PB_ERR_TOOL_DRIFT: entry(
    "a definition differs from its pin in connectors.lock.json, or is new since the lock was written",
    "Review it with `patchbay pins diff <instance>`; if the change is one you approve, `patchbay pins accept <instance> <name>` (the running serve takes it at once). Until then the gateway withholds it (pinning enforce) or flags it (warn).",
    EXIT.UNHEALTHY,
  ),
  PB_ERR_THREAD_STUCK: entry(
    "a plugin's worker thread is stuck in native code and cannot be stopped",
    'Look for the instance whose call or health check did not answer (its PB_ERR_HEALTH_TIMEOUT or PB_ERR_CALL_TIMEOUT above): its plugin is blocked in a synchronous native call (the file system, an addon). Fix that call, or run the instance with "isolation": "process", whose process can be killed.',
    EXIT.UNHEALTHY,
  ),
  PB_ERR_TOOL_CHANGED: entry(
    "the upstream changed a tool's definition after the gateway last read it; the call was not sent",
    "Call it again: the gateway reads the upstream's tools again and checks them against connectors.lock.json first. Under pinning enforce a changed definition is then withheld (PB_ERR_TOOL_DRIFT) until `patchbay pins accept`.",
    EXIT.UNHEALTHY,
    true,
  ),
  PB_ERR_TOOL_HIDDEN_TEXT: entry(
    "a definition carries text a person does not see but a model reads",
    "Look at it with `patchbay pins diff <instance>` (hidden characters shown as <U+XXXX>); accept it only if you understand why it is there: `patchbay pins accept <instance> <name> --allow-hidden-text`.",
    EXIT.UNHEALTHY,
  ),
  PB_ERR_PINS_LOCK_INVALID: entry(
    "connectors.lock.json cannot be used",
    "Fix the file at the JSON pointer named, or restore it from version control; deleting it makes the next serve pin what the upstreams offer then (trust on first use).",
    EXIT.USAGE,
  ),
  PB_ERR_PINS_UNKNOWN: entry(
    "no such instance or definition to accept",
    "Run `patchbay pins diff` to see the instances and definitions that differ from their pins, and accept one of those.",
    EXIT.USAGE,
  ),
  PB_ERR_GATEWAY_UNAUTHORIZED: entry(
    "the request has no valid bearer token",
    "Send the header Authorization with the value Bearer <token>, the token being PATCHBAY_TOKEN's value or the contents of the .patchbay/token file `patchbay serve --http` printed; this server has no OAuth sign-in.",
    EXIT.UNHEALTHY,
  ),
  PB_ERR_GATEWAY_HOST_DENIED: entry(
    "the request's Host or Origin is not this server's",
    "Connect through localhost (or the address serve listens on); a foreign Host or Origin is refused to stop DNS-rebinding attacks. Add extra names to PATCHBAY_ALLOWED_HOSTS if a proxy fronts the gateway.",
    EXIT.UNHEALTHY,
  ),
  PB_ERR_GATEWAY_REQUEST_TOO_LARGE: entry(
    "a request to the gateway is over its size bound",
    "Send less: a request body is at most 4 MiB, its headers 16 KiB, the status page's sign-in form 4 KiB. Pass large data by reference (a path or URL the tool reads) rather than inline.",
    EXIT.UNHEALTHY,
  ),
  PB_ERR_GATEWAY_LISTEN: entry(
    "the gateway could not listen",
    "Pick a free --port (or 0 for any), check --host is an address of this machine, or stop the other `patchbay serve` using this folder.",
    EXIT.USAGE,
  ),
  PB_ERR_GATEWAY_IDEMPOTENCY_CONFLICT: entry(
    "an idempotency key came back with other arguments",
    "Use a new key for each distinct write and the same key only to retry the same write (same tool, same arguments).",
    EXIT.USAGE,
  ),
  PB_ERR_GATEWAY_PEER_UNREACHABLE: entry(
    "a replica's GET /status did not answer",
    "Check the replica runs `patchbay serve --http`, the URL (scheme, host, port) and that PATCHBAY_TOKEN is the replicas' token; an unreachable replica is also out of the load balancer's rotation.",
    EXIT.UNHEALTHY,
  ),
  PB_ERR_SERVER_NOT_RUNNING: entry(
    "no `patchbay serve` is running for this config",
    "Start it with `patchbay serve` (with --mcp or --http as needed) in the folder of connectors.json, then ask again.",
    EXIT.UNHEALTHY,
  ),
  PB_ERR_RELOAD_FAILED: entry(
    "a change could not be applied; the old instance keeps serving",
    "Fix the problem named in the message and save again: the next good edit is picked up.",
    EXIT.UNHEALTHY,
  ),
  // certifying an adapter against the real client
  PB_ERR_ADAPTER_CERTIFY_FAILED: entry(
    "the adapter could not be certified against the client",
    "Check the --client path (it must run `<client> --version`), that the adapter declares a certifyDriver (its plugin's module that runs the client offline), and the message's detail; nothing was written.",
    EXIT.UNHEALTHY,
  ),
  // --- the error model (a substrate that is down is not a plugin bug) ---
  PB_ERR_SUBSTRATE_UNAVAILABLE: entry(
    "the instance's substrate is unavailable",
    "Start the service the instance talks to (database, server, endpoint) or fix its address in the instance's config; the call can be retried once it is back.",
    EXIT.UNHEALTHY,
    true,
  ),
  // --- the boundary against a hostile plugin ---
  PB_ERR_PLUGIN_MISBEHAVING: entry(
    "the plugin's worker sent malformed messages",
    "The instance was restarted; if it keeps happening, fix or remove the plugin (its log lines name each dropped message).",
    EXIT.UNHEALTHY,
  ),
  PB_ERR_SANDBOX_UNAVAILABLE: entry(
    "the sandbox (bubblewrap) is not available",
    "Install Debian's bubblewrap package (apt-get install bubblewrap), or set PATCHBAY_BWRAP to a working bwrap; check that it can create namespaces. The instance is never run outside the sandbox instead.",
    EXIT.PLUGIN_LOAD,
  ),
  PB_ERR_ISOLATION_HOST_DENIED: entry(
    'an instance asks for "isolation": "host" with a plugin that is not bundled with Patchbay',
    'Set the instance\'s "isolation" (the pointer in the message) to "thread", or to "sandbox" for code you do not trust: only the plugins Patchbay ships may run on the host\'s own thread (docs/isolation.md).',
    EXIT.USAGE,
  ),
  PB_ERR_PLUGIN_SYMLINK_ESCAPE: entry(
    "a plugin folder holds a symlink that points outside it",
    "Replace the symlink named in the message with a copy of what it points to, or remove it; plugin folders may only link inside themselves.",
    EXIT.PLUGIN_LOAD,
  ),
  PB_ERR_CONFIG_TOO_DEEP: entry(
    "connectors.json is nested too deeply",
    "Flatten the JSON named in the message: Patchbay reads at most 1,000 levels of nesting.",
    EXIT.USAGE,
  ),
  PB_ERR_CONTRACT_CYCLIC: entry(
    "the plugin's value is cyclic and cannot be checked or sent as JSON",
    "Return plain, acyclic data (a tool's inputSchema must not refer to itself by object identity).",
    EXIT.UNHEALTHY,
  ),
  // --- MCP resource subscriptions ---
  PB_ERR_UNSUPPORTED: entry(
    "the instance's server or substrate does not offer this optional feature",
    "Use the feature on an instance whose server offers it (for resource subscriptions: an MCP server whose capabilities include resources.subscribe); the message names what is missing.",
    EXIT.UNHEALTHY,
  ),
  PB_ERR_GATEWAY_RESOURCE_UNKNOWN: entry(
    "the gateway cannot tell which instance serves this resource",
    "Check the URI against resources/list: the gateway routes a URI to the connector that lists it (or, with one resource connector, to that one); a connector that is unhealthy right now lists nothing.",
    EXIT.UNHEALTHY,
  ),
  PB_ERR_UPSTREAM_RPC: entry(
    "the instance's MCP server answered the request with a JSON-RPC error",
    "Read the server's code and message (kept as it sent them): usually a wrong argument, or a resource or prompt the server does not have.",
    EXIT.UNHEALTHY,
  ),
  PB_ERR_GATEWAY_PROMPT_UNKNOWN: entry(
    "no prompt of that name on this gateway",
    "Check the name against prompts/list (prompt names are <instance>__<prompt>); its connector may be unhealthy or not exposed right now.",
    EXIT.UNHEALTHY,
  ),
  PB_ERR_CONTRACT_BIGINT: entry(
    "the plugin returned a BigInt, which JSON cannot carry",
    "Return the number as a string (or a Number when it fits in 2^53).",
    EXIT.UNHEALTHY,
  ),
  // --- the live host against hostile plugins and upstream servers ---
  PB_ERR_CONFIG_TOO_LARGE: entry(
    "connectors.json defines more instances or aliases than a host can run",
    "Split the file (one host per group of instances) or remove unused entries: Patchbay reads at most 10,000 instances and 10,000 aliases.",
    EXIT.USAGE,
  ),
  PB_ERR_CONTROL_UNAUTHORIZED: entry(
    "the control request does not carry this server's key",
    "Run `patchbay status` / `patchbay call` as the user who started `patchbay serve`, from a process that can read .patchbay/serve.key next to connectors.json; plugins are refused by design.",
    EXIT.UNHEALTHY,
  ),
  PB_ERR_CLIENT_REQUEST_REFUSED: entry(
    "an upstream MCP server's sampling, elicitation or roots request was refused",
    "The server asked outside a call of its instance or past its budget: raise client_requests in the mcp-remote instance's config (per_minute, total, outside_calls) if the server is trusted to ask more.",
    EXIT.UNHEALTHY,
  ),
  PB_ERR_HOOK_TRUST_FAILED: entry(
    "the client did not record (or remove) its trust in Patchbay's hooks",
    "The hooks are installed, but the client may skip them: trust them in the client itself (the install output names the step), or fix what the message names and run `patchbay adapter install <adapter> --trust-hooks` again.",
    EXIT.UNHEALTHY,
  ),
  PB_ERR_GATEWAY_BUSY: entry(
    "the gateway has as many status-page streams open as it keeps",
    "Close a status page tab (each holds one live stream), or reload later; the page still reads without its live stream.",
    EXIT.UNHEALTHY,
    true,
  ),
  PB_ERR_GATEWAY_TOKEN_INVALID: entry(
    "the OAuth access token was refused",
    "Get a new access token from the authorization server the 401's WWW-Authenticate names (its resource_metadata lists it); the message says which check failed (signature, issuer, audience, expiry, size).",
    EXIT.UNHEALTHY,
  ),
  PB_ERR_CLIENT_UNKNOWN: entry(
    "no gateway client matches",
    "Use a client id from `patchbay client list`; an OAuth token must carry the claim one of gateway.oauth.clients matches (sub, client_id, azp or a scope).",
    EXIT.USAGE,
  ),
  PB_ERR_CLIENT_FORBIDDEN: entry(
    "this client may not use what it asked for",
    "The gateway's operator decides what each client sees: ask them to add it to this client's expose in connectors.json (gateway.clients.<id>.expose, or gateway.oauth.clients.<id>.expose for an OAuth client); tools/list shows what this client may call.",
    EXIT.UNHEALTHY,
  ),
  PB_ERR_CLIENT_QUOTA: entry(
    "the client is past its quota",
    "Wait the time the message names (or for a call of yours in flight to end), then retry; the operator sets the quota in the client's limits (gateway.clients.<id>.limits, or gateway.oauth.clients.<id>.limits).",
    EXIT.UNHEALTHY,
    true,
  ),
  PB_ERR_SESSION_FORBIDDEN: entry(
    "the session belongs to another client",
    "Use the session with the token that opened it, or initialize a new session with your own token.",
    EXIT.UNHEALTHY,
  ),
  PB_ERR_OAUTH_DISCOVERY: entry(
    "the authorization server's metadata or keys could not be read",
    "Check gateway.oauth.issuer (and jwksUri) in connectors.json and that the authorization server is up and reachable from this gateway.",
    EXIT.UNHEALTHY,
    true,
  ),
  PB_ERR_STATE_UNAVAILABLE: entry(
    "the shared gateway state in PostgreSQL could not be reached",
    "Check gateway.state.postgres (its ${VAR}) and that the database is up; quotas and the audit trail need it when connectors.json names it.",
    EXIT.UNHEALTHY,
    true,
  ),
  PB_ERR_AUDIT_UNREADABLE: entry(
    "the audit trail could not be read",
    "Check that .patchbay/audit.log (or the PostgreSQL in gateway.state) exists and is readable by this user; the message names the file or line.",
    EXIT.UNHEALTHY,
  ),
  PB_ERR_AUDIT_WRITE: entry(
    "the audit trail could not be written; calls go on and the lost entries are counted",
    "Check free space and permissions of .patchbay/ (or that the PostgreSQL in gateway.state is up); serve says this once, at the first lost entry.",
    EXIT.UNHEALTHY,
    true,
  ),
} satisfies Record<`PB_ERR_${string}`, CatalogueEntry>);

export type ErrorCode = keyof typeof CATALOGUE;
