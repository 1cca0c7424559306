/** JWT access tokens verified against the issuer's key set: asymmetric algorithms only, a bounded clock skew, few refetches. */
import { createRemoteJWKSet, errors, jwtVerify, type JWTVerifyGetKey } from "jose";
import type { OAuthOptions, TokenVerdict } from "./token-checker.ts";

/**
 * Asymmetric algorithms only: never `none`, never an HMAC (`HS*`), whose "key" would be the
 * issuer's public key, which anyone can fetch (the key-confusion attack).
 */
export const ALLOWED_ALGORITHMS = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
  "Ed25519",
];
/** Clock skew tolerated on `exp`, `nbf` and `iat`, in seconds. */
export const CLOCK_TOLERANCE_S = 30;
/** An unknown `kid` refetches the key set at most this often (a stream of forged kids costs one fetch per window). */
export const JWKS_COOLDOWN_MS = 30_000;
/** `typ` values of an access token (RFC 9068 `at+jwt`, and the plain `JWT` most providers send), lower case. */
const ACCEPTED_TYPES = new Set(["at+jwt", "application/at+jwt", "jwt"]);

export interface JwtPolicy extends Pick<OAuthOptions, "issuer" | "audience"> {
  /** Tests shorten it; 30 s otherwise. */
  cooldownMs?: number;
}

/** A token that has the shape of a JWS compact serialisation (three base64url parts); anything else is opaque. */
export function looksLikeJwt(token: string): boolean {
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(token);
}

/** Checks JWT access tokens against the issuer's key set, which `jose` fetches, caches and refetches on an unknown `kid`. */
export class JwtVerifier {
  private readonly keys: JWTVerifyGetKey;

  constructor(
    jwksUri: string,
    private readonly policy: JwtPolicy,
  ) {
    this.keys = createRemoteJWKSet(new URL(jwksUri), {
      cooldownDuration: policy.cooldownMs ?? JWKS_COOLDOWN_MS,
      timeoutDuration: 5_000,
    });
  }

  async verify(token: string): Promise<TokenVerdict> {
    try {
      const { payload, protectedHeader } = await jwtVerify(token, this.keys, {
        issuer: this.policy.issuer,
        audience: this.policy.audience,
        algorithms: ALLOWED_ALGORITHMS,
        clockTolerance: CLOCK_TOLERANCE_S,
        requiredClaims: ["exp", "sub"],
      });
      const typ = protectedHeader.typ?.toLowerCase();
      if (typ !== undefined && !ACCEPTED_TYPES.has(typ))
        return { kind: "invalid", reason: "the token is not an access token (typ)" };
      return { kind: "valid", claims: payload };
    } catch (error) {
      return verdictOf(error);
    }
  }
}

/** A jose error as a verdict: the token's fault (401), or the key set's (503). */
function verdictOf(error: unknown): TokenVerdict {
  if (error instanceof errors.JWTExpired) return { kind: "invalid", reason: "the token has expired" };
  if (error instanceof errors.JWTClaimValidationFailed) {
    const reason =
      error.claim === "aud"
        ? "the token is not for this server (aud)"
        : error.claim === "iss"
          ? "the token is from another issuer (iss)"
          : error.claim === "nbf"
            ? "the token is not valid yet (nbf)"
            : `the token's "${error.claim}" claim is missing or wrong`;
    return { kind: "invalid", reason };
  }
  if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported)
    return { kind: "invalid", reason: "the token's signing algorithm is not accepted" };
  if (error instanceof errors.JWKSNoMatchingKey)
    return { kind: "invalid", reason: "the token is signed with a key the issuer does not publish" };
  if (error instanceof errors.JWSSignatureVerificationFailed)
    return { kind: "invalid", reason: "the token's signature is not valid" };
  if (error instanceof errors.JWSInvalid || error instanceof errors.JWTInvalid)
    return { kind: "invalid", reason: "the token is not a well-formed JWT" };
  if (error instanceof errors.JWKSMultipleMatchingKeys)
    return { kind: "invalid", reason: "the token names no key the issuer publishes unambiguously" };
  // JWKSTimeout, JWKSInvalid, a non-200 answer, a network error: the issuer's keys are out of reach.
  return {
    kind: "unavailable",
    reason: `the issuer's keys could not be fetched (${error instanceof Error ? error.message : String(error)})`,
  };
}
