import type { Subprocess } from "bun";
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from "jose";
import { join } from "node:path";

const PROVIDER_SCRIPT = join(import.meta.dir, "..", "fixtures", "oidc-provider.mjs");

/** The `oidc-provider` fixture, run under node (oidc-provider does not run under Bun). */
export interface Provider {
  issuer: string;
  proc: Subprocess<"ignore", "pipe", "pipe">;
  /** A new signing key at the provider; returns its kid. */
  rotate(): Promise<string>;
  /** How often the JWKS was fetched so far. */
  jwksFetches(): Promise<number>;
  stop(): Promise<void>;
}

export async function startProvider(): Promise<Provider> {
  const proc = Bun.spawn(["node", PROVIDER_SCRIPT], { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const reader = proc.stdout.getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the provider did not start: ${await new Response(proc.stderr).text()}`);
    text += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  const { issuer } = JSON.parse(text.split("\n")[0]!) as { issuer: string };
  return {
    issuer,
    proc,
    async rotate() {
      return ((await (await fetch(`${issuer}/__rotate`, { method: "POST" })).json()) as { kid: string }).kid;
    },
    async jwksFetches() {
      return ((await (await fetch(`${issuer}/__stats`)).json()) as { jwks: number }).jwks;
    },
    async stop() {
      proc.kill();
      await proc.exited;
    },
  };
}

export const JWT_CLIENT = { id: "skills-cli", secret: "skills-cli-secret-0123456789" };
/** Clients whose tokens carry `groups`: `["alpha", "eng"]` and `["beta"]`. */
export const ALPHA_CLIENT = { id: "alpha-cli", secret: "alpha-cli-secret-0123456789" };
export const BETA_CLIENT = { id: "beta-cli", secret: "beta-cli-secret-0123456789" };
export const OPAQUE_CLIENT = { id: "opaque-cli", secret: "opaque-cli-secret-0123456789" };
export const INTROSPECTION_CLIENT = { id: "skill-central", secret: "skill-central-secret-0123456789" };

/** A client-credentials grant at the provider, for `resource` (RFC 8707) and `scope`. */
export async function clientCredentials(
  issuer: string,
  client: { id: string; secret: string },
  resource: string,
  scope = "skills:read",
): Promise<string> {
  const response = await fetch(`${issuer}/token`, {
    method: "POST",
    headers: {
      Authorization: `Basic ${btoa(`${client.id}:${client.secret}`)}`,
      "Content-Type": "application/x-www-form-urlencoded",
    },
    body: new URLSearchParams({ grant_type: "client_credentials", resource, scope }),
  });
  const body = (await response.json()) as { access_token?: string };
  if (body.access_token === undefined) throw new Error(`no token: ${JSON.stringify(body)}`);
  return body.access_token;
}

/**
 * An issuer of our own, for token shapes the provider cannot make (Keycloak, Entra ID, Okta,
 * expired, wrong issuer): a real HTTP server with discovery and a JWKS, and a key to sign with.
 */
export interface LocalIssuer {
  issuer: string;
  kid: string;
  sign(claims: Record<string, unknown>, header?: { typ?: string; kid?: string; key?: CryptoKey }): Promise<string>;
  /** Requests it answered, by path. */
  hits: Map<string, number>;
  stop(): void;
}

/**
 * `issuerPath` ("/realms/eng", "/tenant/v2.0") gives the issuer a path; `discovery` says which
 * well-known document it publishes ("oauth": RFC 8414 with the path inserted; "openid": appended).
 */
export async function startLocalIssuer(
  issuerPath = "",
  discovery: "oauth" | "openid" = "openid",
): Promise<LocalIssuer> {
  const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: true });
  const kid = `local-${crypto.randomUUID().slice(0, 8)}`;
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid, alg: "ES256", use: "sig" };
  const hits = new Map<string, number>();
  let issuer = "";
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(request) {
      const path = new URL(request.url).pathname;
      hits.set(path, (hits.get(path) ?? 0) + 1);
      const metadata =
        discovery === "oauth"
          ? `/.well-known/oauth-authorization-server${issuerPath}`
          : `${issuerPath}/.well-known/openid-configuration`;
      if (path === metadata) return Response.json({ issuer, jwks_uri: `${issuer}/keys` });
      if (path === `${issuerPath}/keys`) return Response.json({ keys: [jwk] });
      return new Response("not found", { status: 404 });
    },
  });
  issuer = `http://127.0.0.1:${server.port}${issuerPath}`;
  return {
    issuer,
    kid,
    hits,
    sign(claims, header = {}) {
      return new SignJWT(claims)
        .setProtectedHeader({
          alg: "ES256",
          kid: header.kid ?? kid,
          ...(header.typ !== undefined && { typ: header.typ }),
        })
        .sign(header.key ?? privateKey);
    },
    stop: () => void server.stop(true),
  };
}
