/** The OAuth resource server's settings as the HTTP server uses them (from `http.oauth`, resolved at start). */
export interface OAuthOptions {
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
