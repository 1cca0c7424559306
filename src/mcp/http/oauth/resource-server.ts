/**
 * This server as an OAuth resource server: JWT access tokens checked against the issuer's keys,
 * opaque ones through introspection (when configured), each verdict kept per token (by digest)
 * until the token expires, so a token seen again costs a hash and a map lookup. The token is sent
 * nowhere but to the configured introspection endpoint, and is never logged.
 */
import { CLOCK_TOLERANCE_S, JwtVerifier, looksLikeJwt } from "./jwt-verifier.ts";
import { introspect } from "./introspection.ts";
import { IssuerDiscovery } from "./issuer-metadata.ts";
import { hasScopes, type OAuthOptions, type TokenChecker, type TokenVerdict } from "./token-checker.ts";
import { VerdictCache } from "./verdict-cache.ts";

export class OAuthResourceServer implements TokenChecker {
  private readonly discovery: IssuerDiscovery;
  private verifier: JwtVerifier | undefined;
  /** Per token: its verdict with the scopes already decided (an `unavailable` one is never kept). */
  private readonly cache = new VerdictCache<TokenVerdict>();

  constructor(
    readonly options: OAuthOptions,
    warn: (line: string) => void,
    private readonly testing: { jwksCooldownMs?: number } = {},
  ) {
    this.discovery = new IssuerDiscovery(options.issuer, warn);
  }

  /** Starts discovery now, so the first request does not wait for it. */
  warm(): void {
    void this.discovery.get();
  }

  async check(token: string): Promise<TokenVerdict> {
    const key = VerdictCache.keyOf(token);
    const known = this.cache.get(key);
    if (known !== undefined) return known;
    const { verdict, until } = await this.verdict(token);
    if (verdict.kind === "unavailable") return verdict;
    const decided: TokenVerdict =
      verdict.kind === "valid" && !hasScopes(verdict.claims, this.options.scopes)
        ? { kind: "insufficient_scope" }
        : verdict;
    this.cache.set(key, decided, until);
    return decided;
  }

  /** The verdict on a token not seen before, and until when (epoch seconds) it may be reused (0: not). */
  private async verdict(token: string): Promise<{ verdict: TokenVerdict; until: number }> {
    const { introspection } = this.options;
    if (looksLikeJwt(token)) {
      const verifier = await this.jwtVerifier();
      if (verifier !== undefined) {
        const verdict = await verifier.verify(token);
        const exp = verdict.kind === "valid" ? verdict.claims.exp : undefined;
        // jose accepted it up to `exp` plus the skew; a cached verdict lasts exactly as long.
        return { verdict, until: typeof exp === "number" ? exp + CLOCK_TOLERANCE_S : 0 };
      }
      if (introspection === undefined)
        return { verdict: { kind: "unavailable", reason: "the issuer's metadata could not be fetched" }, until: 0 };
    }
    if (introspection === undefined)
      return {
        verdict: { kind: "invalid", reason: "the token is not a JWT, and no introspection is configured" },
        until: 0,
      };
    return introspect(token, introspection, this.options);
  }

  private async jwtVerifier(): Promise<JwtVerifier | undefined> {
    if (this.verifier !== undefined) return this.verifier;
    const metadata = await this.discovery.get();
    if (metadata?.jwksUri === undefined) return undefined;
    this.verifier ??= new JwtVerifier(metadata.jwksUri, {
      issuer: this.options.issuer,
      audience: this.options.audience,
      ...(this.testing.jwksCooldownMs !== undefined && { cooldownMs: this.testing.jwksCooldownMs }),
    });
    return this.verifier;
  }
}
