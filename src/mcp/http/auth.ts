/** The auth stage: who is asking (a static token, an OAuth access token, or nobody) or the refusal, with its challenge. */
import type { AuthInfo } from "@modelcontextprotocol/server";
import { ANONYMOUS, type Caller } from "../../registry/caller.ts";
import type { BearerTokens } from "./bearer-tokens.ts";
import { authInfoFor } from "./auth-info.ts";
import { challenge } from "./oauth/protected-resource.ts";
import { grantedScopes, type TokenChecker } from "./oauth/token-checker.ts";
import { errorResponse } from "./responses.ts";

/**
 * Who is asking (registry/caller.ts), or the refusal to answer. An authenticated caller comes
 * with the SDK's `AuthInfo` for its token, which is how the caller reaches the server the SDK's
 * handler builds for the request (auth-info.ts); an anonymous one has none.
 */
export type Authentication =
  | { ok: true; caller: Caller; authInfo: AuthInfo | undefined }
  | { ok: false; response: Response };

/** The ways a request may authenticate: static tokens, OAuth access tokens (any `TokenChecker`), either, or none. */
export interface Authenticators {
  tokens: BearerTokens | undefined;
  oauth: TokenChecker | undefined;
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/**
 * The auth stage (attached per path by stages.ts, after the guard): a static bearer token when
 * tokens are configured (checked first, answered as always), else an OAuth access token when
 * OAuth is; without either, every caller is anonymous. The gate adds the CORS headers to a
 * refusal, so a trusted browser page can read why.
 */
export async function authenticate(auth: Authenticators, request: Request): Promise<Authentication> {
  const { tokens, oauth } = auth;
  if (tokens === undefined && oauth === undefined) return { ok: true, caller: ANONYMOUS, authInfo: undefined };
  const authorization = request.headers.get("authorization");
  if (tokens !== undefined) {
    const verdict = tokens.check(authorization);
    if (verdict.ok) {
      const caller: Caller = { kind: "token", label: verdict.label };
      const token = BEARER.exec(authorization ?? "")?.[1] ?? "";
      return { ok: true, caller, authInfo: authInfoFor(caller, { token, clientId: verdict.label, scopes: [] }) };
    }
    if (oauth === undefined) return staticRefusal(verdict.reason);
  }
  return authenticateOAuth(oauth!, authorization);
}

/** The refusal of a server with static tokens only: as it has always been, byte for byte. */
function staticRefusal(reason: "missing" | "malformed" | "invalid"): Authentication {
  const missing = reason === "missing";
  const challengeText = missing
    ? 'Bearer realm="skill-central"'
    : 'Bearer realm="skill-central", error="invalid_token"';
  const why = missing
    ? "a bearer token is required"
    : reason === "malformed"
      ? 'the Authorization header is not "Bearer <token>"'
      : "the token is not valid";
  return {
    ok: false,
    response: errorResponse(401, -32001, `Unauthorized: ${why}`, { "WWW-Authenticate": challengeText }),
  };
}

async function authenticateOAuth(oauth: TokenChecker, authorization: string | null): Promise<Authentication> {
  const { options } = oauth;
  const refuse = (status: number, message: string, error?: Parameters<typeof challenge>[1]): Authentication => ({
    ok: false,
    response: errorResponse(status, -32001, message, { "WWW-Authenticate": challenge(options, error) }),
  });
  if (authorization === null || authorization.trim() === "")
    return refuse(401, "Unauthorized: a bearer token is required");
  const token = BEARER.exec(authorization)?.[1];
  if (token === undefined)
    return refuse(401, 'Unauthorized: the Authorization header is not "Bearer <token>"', "invalid_request");
  const verdict = await oauth.check(token);
  switch (verdict.kind) {
    case "invalid":
      return refuse(401, `Unauthorized: ${verdict.reason}`, "invalid_token");
    case "insufficient_scope":
      return refuse(
        403,
        `Forbidden: the token lacks the required scope (${options.scopes.join(" ")})`,
        "insufficient_scope",
      );
    case "unavailable":
      // Not the token's fault: a 401 would send the client into a new sign-in for a token that may well be good.
      return {
        ok: false,
        response: errorResponse(
          503,
          -32000,
          `Service unavailable: the authorization server cannot be reached (${verdict.reason}); retry shortly`,
          { "Retry-After": "5" },
        ),
      };
    case "valid": {
      const { claims } = verdict;
      const subject = String(claims.sub);
      const named = claims[options.callerClaim];
      const name = typeof named === "string" && named !== "" ? named : subject;
      const caller: Caller = { kind: "oauth", issuer: String(claims.iss), subject, name, claims };
      const clientId = [claims.client_id, claims.azp, claims.cid].find((id) => typeof id === "string");
      const authInfo = authInfoFor(caller, {
        token,
        clientId: typeof clientId === "string" ? clientId : subject,
        scopes: [...grantedScopes(claims)],
        ...(typeof claims.exp === "number" && { expiresAt: claims.exp }),
        resource: new URL(options.resource),
      });
      return { ok: true, caller, authInfo };
    }
  }
}
