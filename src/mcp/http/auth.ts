import type { BearerTokens } from "./bearer-tokens.ts";
import { errorResponse } from "./responses.ts";

/** Who is asking: the label of the token that matched (undefined without tokens), or the 401. */
export type Authentication = { ok: true; label: string | undefined } | { ok: false; response: Response };

/**
 * The second stage of a request to /mcp, after the guard: a valid bearer token when tokens are
 * configured. A refusal carries the `cors` headers so a trusted browser page can read why.
 */
export function authenticate(
  tokens: BearerTokens | undefined,
  request: Request,
  cors: () => Record<string, string>,
): Authentication {
  if (tokens === undefined) return { ok: true, label: undefined };
  const verdict = tokens.check(request.headers.get("authorization"));
  if (verdict.ok) return { ok: true, label: verdict.label };
  const missing = verdict.reason === "missing";
  const challenge = missing ? 'Bearer realm="skill-central"' : 'Bearer realm="skill-central", error="invalid_token"';
  const why = missing
    ? "a bearer token is required"
    : verdict.reason === "malformed"
      ? 'the Authorization header is not "Bearer <token>"'
      : "the token is not valid";
  return {
    ok: false,
    response: errorResponse(401, -32001, `Unauthorized: ${why}`, { "WWW-Authenticate": challenge, ...cors() }),
  };
}
