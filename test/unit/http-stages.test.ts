import { describe, expect, test } from "bun:test";
import type { AuthInfo, McpHttpHandler } from "@modelcontextprotocol/server";
import { accessLine } from "../../src/mcp/http/access-log.ts";
import { type Authenticators, authenticate } from "../../src/mcp/http/auth.ts";
import { BearerTokens } from "../../src/mcp/http/bearer-tokens.ts";
import { MAX_BODY_BYTES, readBody } from "../../src/mcp/http/body.ts";
import { CallerEventBus } from "../../src/mcp/http/caller-bus.ts";
import { authInfoFor, callerOf } from "../../src/mcp/http/auth-info.ts";
import { dispatch } from "../../src/mcp/http/dispatch.ts";
import { authenticated, contextOf, cors, guarded, preflight, staged } from "../../src/mcp/http/stages.ts";
import type { OAuthOptions, TokenChecker, TokenVerdict } from "../../src/mcp/http/oauth/token-checker.ts";
import { InFlight } from "../../src/mcp/http/in-flight.ts";
import { checkHttpOptions, HttpConfigError, type HttpOptions } from "../../src/mcp/http/options.ts";
import { probe } from "../../src/mcp/http/probes.ts";
import { RequestGuard } from "../../src/mcp/http/request-guard.ts";
import { LiveRegistry } from "../../src/mcp/registry-source.ts";
import { ANONYMOUS, type Caller, principalOf } from "../../src/registry/caller.ts";
import { buildRegistry } from "../../src/registry/registry.ts";

/** Each stage of a request to /mcp on its own: guard → auth → body → dispatch → log. */

const TOKEN = "a-token-long-enough-to-pass";
const tokens = BearerTokens.single("ci", TOKEN, "test");
const post = (body: string, headers: Record<string, string> = {}) =>
  new Request("http://127.0.0.1:8740/mcp", { method: "POST", body, headers: { Host: "127.0.0.1:8740", ...headers } });
const errorOf = async (response: Response) =>
  ((await response.json()) as { error: { code: number; message: string } }).error;

describe("guard stage", () => {
  const guard = new RequestGuard({ loopback: true, allowedHosts: [], allowedOrigins: [], tokens });

  test("a request from this machine's own host and no Origin passes", () => {
    const request = post("{}");
    expect(guard.admit(request, new URL(request.url))).toBeUndefined();
  });

  test("credentials in the URL, a foreign Host and an untrusted Origin are refused before any token is looked at", async () => {
    const inUrl = new Request("http://127.0.0.1:8740/mcp?access_token=x", { headers: { Host: "127.0.0.1:8740" } });
    expect(guard.admit(inUrl, new URL(inUrl.url))?.status).toBe(400);
    const rebound = new Request("http://127.0.0.1:8740/mcp", { headers: { Host: "evil.example:8740" } });
    expect(guard.admit(rebound, new URL(rebound.url))?.status).toBe(403);
    const page = post("{}", { Origin: "https://evil.example" });
    const refusal = guard.admit(page, new URL(page.url));
    expect(refusal?.status).toBe(403);
    expect((await errorOf(refusal!)).message).toContain("--allow-origin");
  });
});

describe("auth stage", () => {
  const only = (t: BearerTokens | undefined): Authenticators => ({ tokens: t, oauth: undefined });

  test("without tokens everyone passes, anonymous, with no AuthInfo", async () => {
    expect(await authenticate(only(undefined), post("{}"))).toEqual({
      ok: true,
      caller: ANONYMOUS,
      authInfo: undefined,
    });
  });

  test("a valid token passes as a caller with its label (principal token:<label>), its AuthInfo carrying it", async () => {
    const auth = await authenticate(only(tokens), post("{}", { Authorization: `Bearer ${TOKEN}` }));
    if (!auth.ok) throw new Error("expected a pass");
    expect(auth.caller).toEqual({ kind: "token", label: "ci" });
    expect(principalOf(auth.caller)).toBe("token:ci");
    expect(auth.authInfo).toMatchObject({ token: TOKEN, clientId: "ci", scopes: [] });
    expect(callerOf(auth.authInfo)).toEqual(auth.caller);
  });

  test("a missing, malformed or wrong token is a 401 with a challenge", async () => {
    const cases = [
      [{}, 'Bearer realm="skill-central"', "a bearer token is required"],
      [{ Authorization: "Basic abc" }, 'Bearer realm="skill-central", error="invalid_token"', 'not "Bearer <token>"'],
      [
        { Authorization: "Bearer not-the-token-at-all" },
        'Bearer realm="skill-central", error="invalid_token"',
        "the token is not valid",
      ],
    ] as const;
    for (const [headers, challenge, why] of cases) {
      const auth = await authenticate(only(tokens), post("{}", headers));
      if (auth.ok) throw new Error("expected a refusal");
      expect(auth.response.status).toBe(401);
      expect(auth.response.headers.get("www-authenticate")).toBe(challenge);
      expect((await errorOf(auth.response)).message).toContain(why);
    }
  });

  describe("OAuth access tokens, with a token checker standing in for the resource server", () => {
    const options: OAuthOptions = {
      resource: "https://skills.example.com/mcp",
      issuer: "https://id.example.com",
      audience: "https://skills.example.com/mcp",
      scopes: ["skills:read"],
      callerClaim: "email",
    };
    const metadata = "https://skills.example.com/.well-known/oauth-protected-resource/mcp";
    /** Answers `verdict` for any token, and remembers the tokens it was asked about. */
    const checker = (verdict: TokenVerdict, asked: string[] = []): TokenChecker => ({
      options,
      check: async (token) => {
        asked.push(token);
        return verdict;
      },
    });
    const claims = {
      iss: "https://id.example.com",
      sub: "u-1",
      email: "alice@example.com",
      azp: "vscode",
      scope: "openid skills:read",
      exp: 2_000_000_000,
      groups: ["sre"],
    };
    const bearer = (token: string) => post("{}", { Authorization: `Bearer ${token}` });

    test("a valid token is an oauth caller: issuer, subject, the callerClaim as its name, its claims; AuthInfo as the SDK defines it", async () => {
      const asked: string[] = [];
      const auth = await authenticate(
        { tokens: undefined, oauth: checker({ kind: "valid", claims }, asked) },
        bearer("jwt-1"),
      );
      if (!auth.ok) throw new Error("expected a pass");
      expect(asked).toEqual(["jwt-1"]);
      const caller: Caller = { kind: "oauth", issuer: claims.iss, subject: "u-1", name: "alice@example.com", claims };
      expect(auth.caller).toEqual(caller);
      expect(principalOf(auth.caller)).toBe("oauth:https://id.example.com u-1");
      expect(auth.authInfo).toMatchObject({
        token: "jwt-1",
        clientId: "vscode",
        scopes: ["openid", "skills:read"],
        expiresAt: 2_000_000_000,
        resource: new URL(options.resource),
      });
      expect(callerOf(auth.authInfo)).toEqual(caller);
    });

    test("without the callerClaim the caller is named by its subject", async () => {
      const { email: _, ...unnamed } = claims;
      const auth = await authenticate(
        { tokens: undefined, oauth: checker({ kind: "valid", claims: unnamed }) },
        bearer("t"),
      );
      expect(auth.ok && auth.caller.kind === "oauth" && auth.caller.name).toBe("u-1");
    });

    test("no token, a malformed header, an invalid token, a missing scope: 401/403 with the RFC 6750 challenge naming the metadata", async () => {
      const cases: [Request, TokenVerdict, number, string, string][] = [
        [
          post("{}"),
          { kind: "invalid", reason: "-" },
          401,
          `Bearer scope="skills:read", resource_metadata="${metadata}"`,
          "a bearer token is required",
        ],
        [
          post("{}", { Authorization: "Basic abc" }),
          { kind: "invalid", reason: "-" },
          401,
          `Bearer error="invalid_request", scope="skills:read", resource_metadata="${metadata}"`,
          'not "Bearer <token>"',
        ],
        [
          bearer("t"),
          { kind: "invalid", reason: "the token has expired" },
          401,
          `Bearer error="invalid_token", scope="skills:read", resource_metadata="${metadata}"`,
          "Unauthorized: the token has expired",
        ],
        [
          bearer("t"),
          { kind: "insufficient_scope" },
          403,
          `Bearer error="insufficient_scope", scope="skills:read", resource_metadata="${metadata}"`,
          "lacks the required scope (skills:read)",
        ],
      ];
      for (const [request, verdict, status, challenge, why] of cases) {
        const auth = await authenticate({ tokens: undefined, oauth: checker(verdict) }, request);
        if (auth.ok) throw new Error("expected a refusal");
        expect(auth.response.status).toBe(status);
        expect(auth.response.headers.get("www-authenticate")).toBe(challenge);
        expect((await errorOf(auth.response)).message).toContain(why);
      }
    });

    test("a provider that cannot be reached is a 503 with its reason and Retry-After, never a 401", async () => {
      const down = checker({ kind: "unavailable", reason: "the issuer's metadata could not be fetched" });
      const auth = await authenticate({ tokens: undefined, oauth: down }, bearer("t"));
      if (auth.ok) throw new Error("expected a refusal");
      expect(auth.response.status).toBe(503);
      expect(auth.response.headers.get("retry-after")).toBe("5");
      expect(auth.response.headers.get("www-authenticate")).toBeNull();
      expect((await errorOf(auth.response)).message).toContain("(the issuer's metadata could not be fetched)");
    });

    test("with static tokens too, a static token is checked first and never reaches the resource server", async () => {
      const asked: string[] = [];
      const both = { tokens, oauth: checker({ kind: "valid", claims }, asked) };
      const auth = await authenticate(both, bearer(TOKEN));
      expect(auth.ok && auth.caller).toEqual({ kind: "token", label: "ci" });
      expect(asked).toEqual([]);
      const other = await authenticate(both, bearer("an-oauth-token"));
      expect(other.ok && other.caller.kind).toBe("oauth");
      expect(asked).toEqual(["an-oauth-token"]);
    });
  });
});

describe("the gate: stages attached per path", () => {
  const guard = new RequestGuard({
    loopback: true,
    allowedHosts: [],
    allowedOrigins: ["https://app.example.com"],
    tokens,
  });
  const reached: Caller[] = [];
  const handler = staged(
    [cors(guard), preflight(guard), guarded(guard), authenticated({ tokens, oauth: undefined })],
    async ({ exchange }) => {
      reached.push(exchange.caller);
      return new Response("answered");
    },
  );
  const run = (request: Request) => handler(contextOf(request, new URL(request.url), { caller: ANONYMOUS }));
  const trusted = { Origin: "https://app.example.com" };

  test("guard → auth → handler: the caller the auth stage found reaches the handler, and the access log names it", async () => {
    const request = post("{}", { Authorization: `Bearer ${TOKEN}` });
    const ctx = contextOf(request, new URL(request.url), { caller: ANONYMOUS });
    expect(await (await handler(ctx)).text()).toBe("answered");
    expect(ctx.exchange.caller).toEqual({ kind: "token", label: "ci" });
    expect(accessLine("POST", "/mcp", 200, 1, ctx.exchange)).toBe("http POST /mcp 200 1.0ms token=ci");
    expect(reached.at(-1)).toEqual({ kind: "token", label: "ci" });
  });

  test("a trusted origin gets the CORS headers on an answer and on every refusal (guard and auth alike), once", async () => {
    const answered = await run(post("{}", { ...trusted, Authorization: `Bearer ${TOKEN}` }));
    const unauthenticated = await run(post("{}", trusted));
    const inUrl = new Request("http://127.0.0.1:8740/mcp?access_token=x", {
      headers: { Host: "127.0.0.1:8740", ...trusted },
    });
    const refusedByGuard = await run(inUrl);
    expect([answered.status, unauthenticated.status, refusedByGuard.status]).toEqual([200, 401, 400]);
    for (const response of [answered, unauthenticated, refusedByGuard]) {
      expect(response.headers.get("access-control-allow-origin")).toBe("https://app.example.com");
      expect(response.headers.get("access-control-expose-headers")).toContain("WWW-Authenticate");
    }
    // An untrusted origin is refused by the guard, and told nothing cross-origin.
    const untrusted = await run(post("{}", { Origin: "https://evil.example" }));
    expect(untrusted.status).toBe(403);
    expect(untrusted.headers.get("access-control-allow-origin")).toBeNull();
  });

  test("OPTIONS is a preflight, answered before the guard and the token", async () => {
    const count = reached.length;
    const answer = await run(
      new Request("http://127.0.0.1:8740/mcp", { method: "OPTIONS", headers: { Host: "127.0.0.1:8740", ...trusted } }),
    );
    expect(answer.status).toBe(204);
    expect(answer.headers.get("access-control-allow-methods")).toBe("GET, POST, DELETE");
    expect(reached.length).toBe(count);
  });
});

describe("body stage", () => {
  test("a GET or DELETE has no body to read", async () => {
    expect(await readBody(new Request("http://127.0.0.1/mcp"))).toEqual({ ok: true });
  });

  test("one JSON-RPC request is parsed, with its method for the log", async () => {
    const message = { jsonrpc: "2.0", id: 1, method: "tools/list" };
    expect(await readBody(post(JSON.stringify(message)))).toEqual({ ok: true, parsedBody: message, rpc: "tools/list" });
  });

  test("a response (no method) passes without an rpc", async () => {
    const body = await readBody(post(JSON.stringify({ jsonrpc: "2.0", id: 1, result: {} })));
    expect(body.ok && body.rpc).toBeUndefined();
  });

  test("too large, not JSON, a batch, and not JSON-RPC are each refused with their code", async () => {
    const cases: [string, number, number][] = [
      ["x".repeat(MAX_BODY_BYTES + 1), 413, -32600],
      ["{not json", 400, -32700],
      ['[{"jsonrpc":"2.0","id":1,"method":"ping"}]', 400, -32600],
      ['{"hello":"world"}', 400, -32600],
    ];
    for (const [text, status, code] of cases) {
      const body = await readBody(post(text));
      if (body.ok) throw new Error(`expected a refusal of ${text.slice(0, 20)}`);
      expect({ status: body.response.status, code: (await errorOf(body.response)).code }).toEqual({ status, code });
    }
  });
});

describe("dispatch stage", () => {
  const modern = (seen: unknown[]) =>
    ({
      fetch: async (_request: Request, options: unknown) => {
        seen.push(options);
        return new Response("modern");
      },
    }) as unknown as McpHttpHandler;

  const alice: Caller = { kind: "token", label: "alice" };

  test("without sessions every request goes to the SDK's handler, with its parsed body and its caller; the session it names is reported", async () => {
    const seen: { parsedBody?: unknown; authInfo?: AuthInfo }[] = [];
    const sessions: string[] = [];
    const request = post("{}", { "Mcp-Session-Id": "abcdef0123456789" });
    const response = await dispatch(
      request,
      { jsonrpc: "2.0", id: 1, method: "ping" },
      { caller: alice, authInfo: authInfoFor(alice, { token: "t", clientId: "alice", scopes: [] }) },
      { sessions: undefined, modern: modern(seen), bus: new CallerEventBus() },
      (id) => sessions.push(id),
    );
    expect(await response.text()).toBe("modern");
    expect(seen.map((s) => s.parsedBody)).toEqual([{ jsonrpc: "2.0", id: 1, method: "ping" }]);
    expect(callerOf(seen[0]!.authInfo)).toEqual(alice);
    expect(sessions).toEqual(["abcdef0123456789"]);
  });

  test("a request without a body reaches the handler without a parsedBody; an anonymous caller without AuthInfo", async () => {
    const seen: { parsedBody?: unknown; authInfo?: AuthInfo }[] = [];
    await dispatch(
      new Request("http://127.0.0.1/mcp"),
      undefined,
      { caller: ANONYMOUS, authInfo: undefined },
      { sessions: undefined, modern: modern(seen), bus: new CallerEventBus() },
      () => {},
    );
    expect("parsedBody" in seen[0]!).toBe(false);
    expect("authInfo" in seen[0]!).toBe(false);
    expect(callerOf(seen[0]!.authInfo)).toEqual(ANONYMOUS);
  });

  test("authInfo that did not come from the auth stage is anonymous: it sees no restricted layer", () => {
    expect(callerOf(undefined)).toEqual(ANONYMOUS);
    expect(callerOf({ token: "t", clientId: "c", scopes: [] })).toEqual(ANONYMOUS);
  });
});

describe("log stage", () => {
  test("one line: method, path, status, time, then what the stages learnt, client values quoted", () => {
    const ci: Caller = { kind: "token", label: "ci" };
    expect(accessLine("POST", "/mcp", 200, 1.234, { rpc: "tools/list", session: "abcdef01", caller: ci })).toBe(
      "http POST /mcp 200 1.2ms rpc=tools/list session=abcdef01 token=ci",
    );
    const oauth: Caller = { kind: "oauth", issuer: "https://id.example.com", subject: "u-1", name: "a b", claims: {} };
    expect(accessLine("POST", "/mcp", 200, 0, { caller: oauth })).toBe('http POST /mcp 200 0.0ms caller="a b"');
    expect(accessLine("GET", "/healthz", 200, 0, { caller: ANONYMOUS })).toBe("http GET /healthz 200 0.0ms");
    expect(accessLine("POST", "/mcp", 200, 0, { rpc: "a b\nc", caller: ANONYMOUS })).toBe(
      'http POST /mcp 200 0.0ms rpc="a b\\nc"',
    );
  });
});

describe("probes", () => {
  test("/healthz answers while loading; /readyz only once skills are served; both say stopping", async () => {
    const source = new LiveRegistry();
    expect(probe("/healthz", source, false).status).toBe(200);
    expect(await probe("/readyz", source, false).json()).toEqual({ status: "loading" });
    source.swap(buildRegistry([], []).registry);
    expect(await probe("/readyz", source, false).json()).toEqual({ status: "ready", prompts: 0, tools: 0 });
    expect(probe("/readyz", source, true).status).toBe(503);
    expect(await probe("/healthz", source, true).json()).toEqual({ status: "stopping" });
  });
});

describe("requests in flight", () => {
  test("settled waits for the work in flight, and not for work that never ends past the deadline", async () => {
    const inFlight = new InFlight();
    let finish = () => {};
    const running = inFlight.run(() => new Promise<string>((resolve) => (finish = () => resolve("done"))));
    let settled = false;
    const waiting = inFlight.settled(60_000).then(() => (settled = true));
    await Bun.sleep(0);
    expect(settled).toBe(false);
    finish();
    expect(await running).toBe("done");
    await waiting;
    expect(settled).toBe(true);
    void inFlight.run(() => new Promise(() => {}));
    await inFlight.settled(1);
  });
});

describe("options", () => {
  const base: HttpOptions = {
    host: "127.0.0.1",
    port: 0,
    stateless: false,
    live: false,
    tokens: undefined,
    allowedOrigins: [],
    allowedHosts: [],
    maxSessions: 1,
    sessionIdleMs: 1,
    keepAliveMs: 1,
    log: () => {},
  };

  test("an address other machines reach needs tokens; an --allow-origin must be an origin", () => {
    expect(() => checkHttpOptions(base)).not.toThrow();
    expect(() => checkHttpOptions({ ...base, host: "0.0.0.0" })).toThrow(HttpConfigError);
    expect(() => checkHttpOptions({ ...base, host: "0.0.0.0", tokens })).not.toThrow();
    expect(() => checkHttpOptions({ ...base, allowedOrigins: ["app.example.com"] })).toThrow(HttpConfigError);
  });
});
