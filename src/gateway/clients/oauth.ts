// Placeholder interface until the verifier lands; replaced by the real module on merge.
import type { ResolvedOAuth, ResolvedOAuthClient } from "../../config/types.js";
export interface OAuthCaller {
  client: ResolvedOAuthClient;
  subject: string | null;
  scopes: string[];
}
export interface OAuthRefusal {
  status: 401 | 403 | 503;
  code: "PB_ERR_GATEWAY_TOKEN_INVALID" | "PB_ERR_CLIENT_UNKNOWN" | "PB_ERR_OAUTH_DISCOVERY";
  message: string;
  error: "invalid_token" | "insufficient_scope" | "temporarily_unavailable";
}
export interface OAuthVerifier {
  verify(token: string): Promise<OAuthCaller | OAuthRefusal>;
  resourceMetadata(resource: string): Record<string, unknown>;
  challenge(resourceMetadataUrl: string, refusal?: OAuthRefusal): string;
  readonly fetches: { jwks: number; metadata: number };
}
export function createOAuthVerifier(_spec: ResolvedOAuth): OAuthVerifier {
  throw new Error("not yet");
}
