/**
 * A local OAuth issuer for the bench: OpenID and RFC 8414 discovery and a JWKS on 127.0.0.1,
 * and RS256 access tokens minted with its key, as an identity provider would issue them for our
 * audience. Only what a resource server reads of an issuer; no sign-in.
 */
import { exportJWK, generateKeyPair, SignJWT } from "jose";

export interface LocalIssuer {
  issuer: string;
  /** An access token for `audience`, valid for two hours, with `sub` and `scope`. */
  mint(audience: string, sub: string, scope?: string): Promise<string>;
  stop(): void;
}

export async function startLocalIssuer(): Promise<LocalIssuer> {
  const { publicKey, privateKey } = await generateKeyPair("RS256");
  const kid = "bench-1";
  const jwk = { ...(await exportJWK(publicKey)), kid, alg: "RS256", use: "sig" };
  let issuer = "";
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      const { pathname } = new URL(request.url);
      if (pathname === "/.well-known/openid-configuration" || pathname === "/.well-known/oauth-authorization-server")
        return Response.json({ issuer, jwks_uri: `${issuer}/jwks`, token_endpoint: `${issuer}/token` });
      if (pathname === "/jwks") return Response.json({ keys: [jwk] });
      return new Response("not found", { status: 404 });
    },
  });
  issuer = `http://127.0.0.1:${server.port}`;
  return {
    issuer,
    mint: (audience, sub, scope = "skills:read") =>
      new SignJWT({ scope })
        .setProtectedHeader({ alg: "RS256", kid, typ: "at+jwt" })
        .setIssuer(issuer)
        .setAudience(audience)
        .setSubject(sub)
        .setIssuedAt()
        .setExpirationTime("2h")
        .sign(privateKey),
    stop: () => void server.stop(true),
  };
}

/** A port nothing listens on right now, for a server whose public URL must be known before it starts. */
export function freePort(): number {
  const probe = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
  const port = probe.port ?? 0;
  void probe.stop(true);
  return port;
}
