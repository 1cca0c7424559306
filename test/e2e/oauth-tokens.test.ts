import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { generateKeyPair, SignJWT, UnsecuredJWT } from "jose";
import { OAuthResourceServer } from "../../src/mcp/http/oauth/resource-server.ts";
import type { OAuthOptions } from "../../src/mcp/http/oauth/token-checker.ts";
import {
  clientCredentials,
  INTROSPECTION_CLIENT,
  JWT_CLIENT,
  OPAQUE_CLIENT,
  startLocalIssuer,
  startProvider,
  type LocalIssuer,
  type Provider,
} from "../helpers/oauth.ts";

/**
 * The resource server's token checks against real authorization servers: `oidc-provider` (JWT
 * and opaque tokens, its JWKS, its introspection endpoint, key rotation) and issuers of our own
 * on real HTTP ports for the token shapes of Keycloak, Entra ID and Okta and for the bad tokens
 * no provider would issue.
 */
const RESOURCE = "http://127.0.0.1:9/mcp";
const now = () => Math.floor(Date.now() / 1000);
let provider: Provider;

const serverFor = (options: Partial<OAuthOptions> & { issuer: string }, cooldown?: number) =>
  new OAuthResourceServer(
    { resource: RESOURCE, audience: RESOURCE, scopes: [], callerClaim: "sub", ...options },
    () => {},
    cooldown === undefined ? {} : { jwksCooldownMs: cooldown },
  );

beforeAll(async () => {
  provider = await startProvider();
});
afterAll(async () => {
  await provider?.stop();
});

describe("tokens from oidc-provider", () => {
  test("a JWT access token for our URL is valid; its claims are the caller", async () => {
    const server = serverFor({ issuer: provider.issuer, scopes: ["skills:read"] });
    const check = await server.check(await clientCredentials(provider.issuer, JWT_CLIENT, RESOURCE));
    expect(check.kind).toBe("valid");
    if (check.kind === "valid") expect(check.claims).toMatchObject({ sub: "skills-cli", aud: RESOURCE });
  });

  test("a token for another resource is refused (aud); one without the required scope is insufficient_scope", async () => {
    const server = serverFor({ issuer: provider.issuer, scopes: ["skills:read"] });
    const other = await clientCredentials(provider.issuer, JWT_CLIENT, "http://127.0.0.1:9/other");
    expect(await server.check(other)).toEqual({ kind: "invalid", reason: "the token is not for this server (aud)" });
    const writeOnly = await clientCredentials(provider.issuer, JWT_CLIENT, RESOURCE, "skills:write");
    expect(await server.check(writeOnly)).toEqual({ kind: "insufficient_scope" });
  });

  test("a tampered signature, HS256 with a guessed key, alg none: each invalid", async () => {
    const server = serverFor({ issuer: provider.issuer });
    const good = await clientCredentials(provider.issuer, JWT_CLIENT, RESOURCE);
    const [h, p, s] = good.split(".") as [string, string, string];
    const flipped = `${h}.${p}.${s.slice(0, -2)}${s.endsWith("AA") ? "BB" : "AA"}`;
    expect(await server.check(flipped)).toEqual({ kind: "invalid", reason: "the token's signature is not valid" });
    const claims = { sub: "mallory", aud: RESOURCE, iss: provider.issuer, exp: now() + 600 };
    const hs = await new SignJWT(claims)
      .setProtectedHeader({ alg: "HS256", kid: "key-1" })
      .sign(new TextEncoder().encode("a-guessed-secret-of-some-length!"));
    expect(await server.check(hs)).toEqual({
      kind: "invalid",
      reason: "the token's signing algorithm is not accepted",
    });
    const none = new UnsecuredJWT(claims).encode();
    expect((await server.check(none)).kind).toBe("invalid");
  });

  test("key rotation: a token under a new kid refetches the JWKS (once per cooldown), no restart", async () => {
    const server = serverFor({ issuer: provider.issuer }, 0);
    expect((await server.check(await clientCredentials(provider.issuer, JWT_CLIENT, RESOURCE))).kind).toBe("valid");
    const before = await provider.jwksFetches();
    await provider.rotate();
    const rotated = await clientCredentials(provider.issuer, JWT_CLIENT, RESOURCE);
    expect((await server.check(rotated)).kind).toBe("valid");
    expect(await provider.jwksFetches()).toBe(before + 1);
  });

  test("with the default 30 s cooldown, a burst of unknown kids costs no refetch", async () => {
    const server = serverFor({ issuer: provider.issuer });
    expect((await server.check(await clientCredentials(provider.issuer, JWT_CLIENT, RESOURCE))).kind).toBe("valid");
    const before = await provider.jwksFetches();
    const { privateKey } = await generateKeyPair("RS256");
    for (let i = 0; i < 5; i++) {
      const forged = await new SignJWT({ sub: "x", aud: RESOURCE, iss: provider.issuer, exp: now() + 60 })
        .setProtectedHeader({ alg: "RS256", kid: `forged-${i}` })
        .sign(privateKey);
      expect(await server.check(forged)).toEqual({
        kind: "invalid",
        reason: "the token is signed with a key the issuer does not publish",
      });
    }
    expect(await provider.jwksFetches()).toBe(before);
  });

  test("an opaque token is introspected (client_secret_basic), cached until exp; without introspection it is invalid", async () => {
    const opaque = await clientCredentials(provider.issuer, OPAQUE_CLIENT, RESOURCE);
    expect(opaque.split(".").length).toBe(1);
    const introspection = {
      url: `${provider.issuer}/token/introspection`,
      clientId: INTROSPECTION_CLIENT.id,
      clientSecret: INTROSPECTION_CLIENT.secret,
    };
    const server = serverFor({ issuer: provider.issuer, scopes: ["skills:read"], introspection });
    const check = await server.check(opaque);
    expect(check.kind).toBe("valid");
    if (check.kind === "valid") expect(check.claims).toMatchObject({ sub: "opaque-cli", client_id: "opaque-cli" });
    // Asked again: answered from the verdict cache.
    expect((await server.check(opaque)).kind).toBe("valid");
    const wrongSecret = serverFor({
      issuer: provider.issuer,
      introspection: { ...introspection, clientSecret: "nope" },
    });
    expect((await wrongSecret.check(opaque)).kind).toBe("unavailable");
    expect(await serverFor({ issuer: provider.issuer }).check(opaque)).toEqual({
      kind: "invalid",
      reason: "the token is not a JWT, and no introspection is configured",
    });
    expect((await server.check("not-a-token-the-provider-issued")).kind).toBe("invalid");
  });
});

describe("token shapes of identity providers, from issuers of our own", () => {
  let keycloak: LocalIssuer;
  let entra: LocalIssuer;
  let okta: LocalIssuer;
  beforeAll(async () => {
    keycloak = await startLocalIssuer("/realms/eng", "openid");
    entra = await startLocalIssuer("/tenant-id/v2.0", "openid");
    okta = await startLocalIssuer("/oauth2/default", "oauth");
  });
  afterAll(() => {
    for (const issuer of [keycloak, entra, okta]) issuer?.stop();
  });

  test("Keycloak: typ JWT, aud an array, azp, a realm issuer with a path", async () => {
    const server = serverFor({ issuer: keycloak.issuer, scopes: ["skills:read"], callerClaim: "email" });
    const token = await keycloak.sign(
      {
        iss: keycloak.issuer,
        sub: "f3c1-user",
        aud: [RESOURCE, "account"],
        azp: "vscode",
        scope: "openid email skills:read",
        email: "alice@example.com",
        groups: ["sre"],
        exp: now() + 300,
      },
      { typ: "JWT" },
    );
    const check = await server.check(token);
    expect(check).toMatchObject({ kind: "valid", claims: { email: "alice@example.com", groups: ["sre"] } });
    expect(keycloak.hits.get("/realms/eng/.well-known/openid-configuration")).toBe(1);
  });

  test("Entra ID v2: aud a GUID (explicit audience), scp a space-separated string", async () => {
    const audience = "4a7d0f0e-1111-2222-3333-444455556666";
    const server = serverFor({ issuer: entra.issuer, audience, scopes: ["skills.read"] });
    const claims = { iss: entra.issuer, sub: "oid-sub", aud: audience, scp: "User.Read skills.read", exp: now() + 300 };
    expect((await server.check(await entra.sign(claims, { typ: "JWT" }))).kind).toBe("valid");
    const noScope = await entra.sign({ ...claims, scp: "User.Read" }, { typ: "JWT" });
    expect(await server.check(noScope)).toEqual({ kind: "insufficient_scope" });
    // Scopes required and neither `scp` nor `scope` in the token at all: 403 too, never a pass.
    const { scp: _, ...withoutScopeClaim } = claims;
    expect(await server.check(await entra.sign(withoutScopeClaim, { typ: "JWT" }))).toEqual({
      kind: "insufficient_scope",
    });
  });

  test("Okta: scp an array, cid, RFC 8414 discovery with the path inserted", async () => {
    const server = serverFor({ issuer: okta.issuer, scopes: ["skills:read"] });
    const token = await okta.sign(
      { iss: okta.issuer, sub: "svc@okta", cid: "0oa1", aud: RESOURCE, scp: ["skills:read"], exp: now() + 300 },
      { typ: "application/at+jwt" },
    );
    expect((await server.check(token)).kind).toBe("valid");
    expect(okta.hits.get("/.well-known/oauth-authorization-server/oauth2/default")).toBe(1);
  });

  test("wrong issuer, a trailing slash, expired, not yet valid, no exp, an id-token typ, an unknown key: each invalid", async () => {
    const server = serverFor({ issuer: keycloak.issuer });
    const base = { iss: keycloak.issuer, sub: "u", aud: RESOURCE, exp: now() + 300 };
    const reasonOf = async (claims: Record<string, unknown>, header = {}) => {
      const check = await server.check(await keycloak.sign(claims, header));
      return check.kind === "invalid" ? check.reason : check.kind;
    };
    expect(await reasonOf({ ...base, iss: entra.issuer })).toBe("the token is from another issuer (iss)");
    expect(await reasonOf({ ...base, iss: `${keycloak.issuer}/` })).toBe("the token is from another issuer (iss)");
    expect(await reasonOf({ ...base, exp: now() - 120 })).toBe("the token has expired");
    expect(await reasonOf({ ...base, nbf: now() + 600 })).toBe("the token is not valid yet (nbf)");
    expect(await reasonOf({ iss: keycloak.issuer, sub: "u", aud: RESOURCE })).toContain('"exp" claim');
    expect(await reasonOf(base, { typ: "id_token+jwt" })).toBe("the token is not an access token (typ)");
    // Within the 30 s skew an expiry is still accepted.
    expect(await reasonOf({ ...base, exp: now() - 5 })).toBe("valid");
    const { privateKey } = await generateKeyPair("ES256");
    expect(await reasonOf(base, { kid: keycloak.kid, key: privateKey })).toBe("the token's signature is not valid");
  });

  test("an issuer whose metadata cannot be had: unavailable (503), never a crash", async () => {
    const server = serverFor({ issuer: "http://127.0.0.1:9/nowhere" });
    const token = await keycloak.sign({ iss: "http://127.0.0.1:9/nowhere", sub: "u", aud: RESOURCE, exp: now() + 60 });
    expect(await server.check(token)).toEqual({
      kind: "unavailable",
      reason: "the issuer's metadata could not be fetched",
    });
  });
});
