/**
 * What the auth stage (src/mcp/http/auth.ts) asks of a resource server: its options, one verdict
 * shape for every way a token is checked (JWT, introspection, the cache), and the `TokenChecker`
 * seam, so a test or another kind of resource server can stand in for `OAuthResourceServer`.
 *
 * The SDK's `OAuthTokenVerifier` (`verifyAccessToken(token): Promise<AuthInfo>`, refusals thrown
 * as `OAuthError`) was weighed and not taken as the seam: its refusals know only 401, 403 and 500,
 * where a provider that cannot be reached must be a 503 with its reason (a 401 sends every client
 * into a new sign-in for a token that may well be good), and its gate requires an `exp` that
 * introspection may not give. Its `AuthInfo` is what the auth stage hands on (../auth-info.ts).
 */

/** The resource server's settings as the HTTP server uses them (from `http.oauth` and the public URL, resolved at start). */
export interface OAuthOptions {
  /** This server's canonical URL (`--public-url`, `http.publicUrl`): the resource its metadata names. */
  resource: string;
  /** The authorization server's issuer; `iss` must equal it exactly. */
  issuer: string;
  /** What `aud` must contain: `http.oauth.audience`, else the public URL. */
  audience: string;
  /** Scopes every token must carry (empty: none). */
  scopes: readonly string[];
  /** The claim the access log names a caller by (`sub` by default). */
  callerClaim: string;
  /** Introspection of opaque tokens, with the client secret read from its environment variable at start. */
  introspection?: { url: string; clientId: string; clientSecret: string };
}

/**
 * What checking an access token found. `reason` is for the client and the log: it names what was
 * wrong (the audience, the signature), never the token or its content.
 */
export type TokenVerdict =
  | { kind: "valid"; claims: Readonly<Record<string, unknown>> }
  /** A valid token without every required scope (403). */
  | { kind: "insufficient_scope" }
  | { kind: "invalid"; reason: string }
  /** The authorization server (its metadata, keys or introspection) could not be reached: not the token's fault (503). */
  | { kind: "unavailable"; reason: string };

/** What the auth stage asks of a resource server (src/mcp/http/auth.ts). */
export interface TokenChecker {
  readonly options: OAuthOptions;
  check(token: string): Promise<TokenVerdict>;
}

/**
 * The scopes a token grants: RFC 9068's `scope` (space-separated), or `scp` as Entra ID (a
 * space-separated string) and Okta (an array) send it.
 */
export function grantedScopes(claims: Readonly<Record<string, unknown>>): Set<string> {
  const granted = new Set<string>();
  for (const value of [claims.scope, claims.scp]) {
    if (typeof value === "string") for (const s of value.split(" ")) if (s !== "") granted.add(s);
    if (Array.isArray(value)) for (const s of value) if (typeof s === "string") granted.add(s);
  }
  return granted;
}

/** Whether every required scope is granted (none required: always). */
export function hasScopes(claims: Readonly<Record<string, unknown>>, required: readonly string[]): boolean {
  if (required.length === 0) return true;
  const granted = grantedScopes(claims);
  return required.every((scope) => granted.has(scope));
}
