/**
 * Who made a request to the gateway: the operator (the server's own token, and the one stdio client)
 * or a configured client with its policy. Every door of the gateway asks the same Caller, so what
 * tools/list shows and what tools/call allows cannot drift apart.
 */
import { pbError, type ErrorCode, type PatchbayError } from "../../errors.js";
import type { ClientPolicy } from "./policy.js";

export interface Caller {
  /** "operator", or the client id from connectors.json. */
  id: string;
  /** null: the operator, who sees everything the gateway-level expose offers. */
  policy: ClientPolicy | null;
  /**
   * What ties a session to the caller that opened it: a request with another binding is refused.
   * An OAuth caller's includes its subject, so two users mapped to one client id keep apart.
   */
  binding: string;
}

export const OPERATOR: Caller = Object.freeze({ id: "operator", policy: null, binding: "operator" });

/** Why a request was not let in: its HTTP status, code and message, and the OAuth challenge when one is due. */
export interface AuthRefusal {
  status: 401 | 403 | 503;
  code: ErrorCode;
  message: string;
  /** The WWW-Authenticate value (OAuth mode only: sign-in is offered). */
  challenge?: string;
  /** Seconds until asking again is worthwhile (a 503: the authorization server is unreachable). */
  retryAfter?: number;
  /** What to do, where the code's general hint would point elsewhere. */
  hint?: string;
}

/** A valid token no client matches: the operator adds a client for it, or the token asks for more. */
export const NO_CLIENT_HINT =
  "Ask the gateway's operator for a client in gateway.oauth.clients whose match names a claim of your token (sub, client_id, azp or a scope), or request a token with the scope such a client matches.";

export const isRefusal = (v: Caller | AuthRefusal): v is AuthRefusal => "status" in v;

/** Sees every instance's tools (operator) or those its policy names. */
export const seesTool = (caller: Caller, instance: string, target: string): boolean =>
  caller.policy === null || caller.policy.seesTool(instance, target);

export const seesWhole = (caller: Caller, instance: string): boolean =>
  caller.policy === null || caller.policy.seesWhole(instance);

export const seesAny = (caller: Caller, instance: string): boolean =>
  caller.policy === null || caller.policy.seesAny(instance);

/**
 * The refusal of something outside the caller's policy. It names the caller and what it asked for,
 * never who else may use it; a name that exists and one that does not get the same answer, so a
 * client cannot map what others see by probing.
 */
export function forbidden(caller: Caller, what: string): PatchbayError {
  return pbError(
    "PB_ERR_CLIENT_FORBIDDEN",
    `Client "${caller.id}" may not use ${what}: it is not in this client's policy (connectors.json ${caller.policy?.pointer ?? `/gateway/clients/${caller.id}`}/expose).`,
    { client: caller.id },
  );
}
