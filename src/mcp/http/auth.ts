import type { Caller } from "../../registry/caller.ts";
import type { BearerTokens } from "./bearer-tokens.ts";
import { challenge, type ProtectedResource } from "./oauth/protected-resource.ts";
import type { OAuthResourceServer } from "./oauth/resource-server.ts";
import { errorResponse } from "./responses.ts";

/**
 * Who is asking, or the refusal. `caller` decides what they see (static token: its label; OAuth:
 * the token's claims; undefined without authentication); `principal` is a stable key for what
 * they open (a session belongs to it): `token:<label>` or `oauth:<iss> <sub>`; `name` is what the
 * access log shows (the label, or the OAuth caller claim, `sub` by default).
 */
export type Authentication =
  | { ok: true; caller: Caller | undefined; principal: string | undefined; name: string | undefined }
  | { ok: false; response: Response };

/** The ways a request may authenticate: static tokens, OAuth access tokens, either, or none. */
export interface Authenticators {
  tokens: BearerTokens | undefined;
  oauth: { server: OAuthResourceServer; resource: ProtectedResource } | undefined;
}

const ANONYMOUS: Authentication = { ok: true, caller: undefined, principal: undefined, name: undefined };
const BEARER = /^Bearer\s+(\S+)\s*$/i;

/**
 * The second stage of a request to /mcp, after the guard: a static bearer token when tokens are
 * configured (checked first, answered as always), else an OAuth access token when OAuth is. A
 * refusal carries the `cors` headers so a trusted browser page can read why.
 */
export async function authenticate(
  auth: Authenticators,
  request: Request,
  cors: () => Record<string, string>,
): Promise<Authentication> {
  const { tokens, oauth } = auth;
  if (tokens === undefined && oauth === undefined) return ANONYMOUS;
  const authorization = request.headers.get("authorization");
  if (tokens !== undefined) {
    const verdict = tokens.check(authorization);
    if (verdict.ok)
      return { ok: true, caller: { label: verdict.label }, principal: `token:${verdict.label}`, name: verdict.label };
    if (oauth === undefined) return staticRefusal(verdict.reason, cors);
  }
  return authenticateOAuth(oauth!, authorization, cors);
}

/** The refusal of a server with static tokens only: as it has always been, byte for byte. */
function staticRefusal(
  reason: "missing" | "malformed" | "invalid",
  cors: () => Record<string, string>,
): Authentication {
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
    response: errorResponse(401, -32001, `Unauthorized: ${why}`, { "WWW-Authenticate": challengeText, ...cors() }),
  };
}

async function authenticateOAuth(
  oauth: NonNullable<Authenticators["oauth"]>,
  authorization: string | null,
  cors: () => Record<string, string>,
): Promise<Authentication> {
  const { server, resource } = oauth;
  const refuse = (status: number, message: string, error?: Parameters<typeof challenge>[1]): Authentication => ({
    ok: false,
    response: errorResponse(status, -32001, message, { "WWW-Authenticate": challenge(resource, error), ...cors() }),
  });
  if (authorization === null || authorization.trim() === "")
    return refuse(401, "Unauthorized: a bearer token is required");
  const token = BEARER.exec(authorization)?.[1];
  if (token === undefined)
    return refuse(401, 'Unauthorized: the Authorization header is not "Bearer <token>"', "invalid_request");
  const check = await server.check(token);
  if (check.kind === "invalid") return refuse(401, `Unauthorized: ${check.reason}`, "invalid_token");
  if (check.kind === "insufficient_scope")
    return refuse(
      403,
      `Forbidden: the token lacks the required scope (${resource.scopes.join(" ")})`,
      "insufficient_scope",
    );
  if (check.kind === "unavailable")
    return {
      ok: false,
      response: errorResponse(
        503,
        -32000,
        "Service unavailable: the authorization server cannot be reached; retry shortly",
        {
          "Retry-After": "5",
          ...cors(),
        },
      ),
    };
  const { claims } = check;
  const sub = String(claims.sub);
  const named = claims[server.options.callerClaim];
  return {
    ok: true,
    caller: { claims },
    principal: `oauth:${String(claims.iss)} ${sub}`,
    name: typeof named === "string" && named !== "" ? named : sub,
  };
}
