/** RFC 7662 introspection of opaque tokens at our own authorization server, each answer remembered a while. */
import type { OAuthOptions, TokenVerdict } from "./token-checker.ts";

/** An inactive answer is remembered this long (seconds): a stream of bad opaque tokens is not a stream of calls. */
export const INACTIVE_CACHE_S = 30;
/** An active answer without `exp` is remembered this long (seconds). */
export const NO_EXP_CACHE_S = 60;

/**
 * RFC 7662 introspection of an opaque token, as a confidential client (`client_secret_basic`).
 * The token goes only to the configured introspection endpoint of our own authorization server.
 * Returns the verdict and until when (epoch seconds) it may be reused.
 */
export async function introspect(
  token: string,
  endpoint: NonNullable<OAuthOptions["introspection"]>,
  policy: Pick<OAuthOptions, "issuer" | "audience">,
): Promise<{ verdict: TokenVerdict; until: number }> {
  const now = Date.now() / 1000;
  const credentials = Buffer.from(
    `${encodeURIComponent(endpoint.clientId)}:${encodeURIComponent(endpoint.clientSecret)}`,
  ).toString("base64");
  let body: Record<string, unknown>;
  try {
    const response = await fetch(endpoint.url, {
      method: "POST",
      headers: {
        Authorization: `Basic ${credentials}`,
        "Content-Type": "application/x-www-form-urlencoded",
        Accept: "application/json",
      },
      body: new URLSearchParams({ token, token_type_hint: "access_token" }),
      signal: AbortSignal.timeout(5_000),
    });
    if (!response.ok) {
      await response.body?.cancel();
      return { verdict: { kind: "unavailable", reason: `introspection answered HTTP ${response.status}` }, until: 0 };
    }
    body = (await response.json()) as Record<string, unknown>;
  } catch (error) {
    const why = error instanceof Error ? error.name : "error";
    return { verdict: { kind: "unavailable", reason: `introspection failed (${why})` }, until: 0 };
  }
  const inactive = (reason: string) => ({
    verdict: { kind: "invalid" as const, reason },
    until: now + INACTIVE_CACHE_S,
  });
  if (typeof body !== "object" || body === null || body.active !== true) return inactive("the token is not active");
  if (body.iss !== undefined && body.iss !== policy.issuer) return inactive("the token is from another issuer (iss)");
  const aud = typeof body.aud === "string" ? [body.aud] : Array.isArray(body.aud) ? body.aud : [];
  if (!aud.includes(policy.audience)) return inactive("the token is not for this server (aud)");
  const exp = typeof body.exp === "number" ? body.exp : undefined;
  if (exp !== undefined && exp <= now) return inactive("the token has expired");
  if (typeof body.sub !== "string" && typeof body.client_id !== "string")
    return inactive('the token names no subject ("sub" or "client_id")');
  const claims = { ...body, sub: typeof body.sub === "string" ? body.sub : body.client_id, iss: policy.issuer };
  return { verdict: { kind: "valid", claims }, until: exp ?? now + NO_EXP_CACHE_S };
}
