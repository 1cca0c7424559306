import { describe, expect, test } from "bun:test";
import type { AuthInfo, McpHttpHandler } from "@modelcontextprotocol/server";
import { accessLine } from "../../src/mcp/http/access-log.ts";
import { authenticate } from "../../src/mcp/http/auth.ts";
import { BearerTokens } from "../../src/mcp/http/bearer-tokens.ts";
import { MAX_BODY_BYTES, readBody } from "../../src/mcp/http/body.ts";
import { CallerEventBus } from "../../src/mcp/http/caller-bus.ts";
import { ANONYMOUS, callerOf } from "../../src/mcp/http/caller.ts";
import { dispatch } from "../../src/mcp/http/dispatch.ts";
import { InFlight } from "../../src/mcp/http/in-flight.ts";
import { checkHttpOptions, HttpConfigError, type HttpOptions } from "../../src/mcp/http/options.ts";
import { probe } from "../../src/mcp/http/probes.ts";
import { RequestGuard } from "../../src/mcp/http/request-guard.ts";
import { LiveRegistry } from "../../src/mcp/registry-source.ts";
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
  const cors = () => ({ Vary: "Origin" });

  const only = (t: BearerTokens | undefined) => ({ tokens: t, oauth: undefined });

  test("without tokens everyone passes, anonymous", async () => {
    expect(await authenticate(only(undefined), post("{}"), cors)).toEqual({
      ok: true,
      caller: undefined,
      principal: undefined,
      name: undefined,
    });
  });

  test("a valid token passes as a caller with its label, principal token:<label>", async () => {
    expect(await authenticate(only(tokens), post("{}", { Authorization: `Bearer ${TOKEN}` }), cors)).toEqual({
      ok: true,
      caller: { label: "ci" },
      principal: "token:ci",
      name: "ci",
    });
  });

  test("a missing, malformed or wrong token is a 401 with a challenge and the CORS headers", async () => {
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
      const auth = await authenticate(only(tokens), post("{}", headers), cors);
      if (auth.ok) throw new Error("expected a refusal");
      expect(auth.response.status).toBe(401);
      expect(auth.response.headers.get("www-authenticate")).toBe(challenge);
      expect(auth.response.headers.get("vary")).toBe("Origin");
      expect((await errorOf(auth.response)).message).toContain(why);
    }
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

  test("without sessions every request goes to the SDK's handler, with its parsed body and its caller; the session it names is reported", async () => {
    const seen: { parsedBody?: unknown; authInfo?: AuthInfo }[] = [];
    const sessions: string[] = [];
    const request = post("{}", { "Mcp-Session-Id": "abcdef0123456789" });
    const response = await dispatch(
      request,
      { jsonrpc: "2.0", id: 1, method: "ping" },
      { caller: { label: "alice" }, principal: "alice" },
      { sessions: undefined, modern: modern(seen), bus: new CallerEventBus() },
      (id) => sessions.push(id),
    );
    expect(await response.text()).toBe("modern");
    expect(seen.map((s) => s.parsedBody)).toEqual([{ jsonrpc: "2.0", id: 1, method: "ping" }]);
    expect(callerOf(seen[0]!.authInfo)).toEqual({ label: "alice" });
    // The token itself never travels past the auth stage.
    expect(seen[0]!.authInfo!.token).toBe("");
    expect(sessions).toEqual(["abcdef0123456789"]);
  });

  test("a request without a body reaches the handler without a parsedBody; an anonymous caller is {}", async () => {
    const seen: { parsedBody?: unknown; authInfo?: AuthInfo }[] = [];
    await dispatch(
      new Request("http://127.0.0.1/mcp"),
      undefined,
      ANONYMOUS,
      { sessions: undefined, modern: modern(seen), bus: new CallerEventBus() },
      () => {},
    );
    expect("parsedBody" in seen[0]!).toBe(false);
    expect(callerOf(seen[0]!.authInfo)).toEqual({});
  });

  test("authInfo that did not come from the auth stage is nobody in particular: it sees no restricted layer", () => {
    expect(callerOf(undefined)).toEqual({});
    expect(callerOf({ token: "t", clientId: "c", scopes: [] })).toEqual({});
  });
});

describe("log stage", () => {
  test("one line: method, path, status, time, then what the stages learnt, client values quoted", () => {
    expect(accessLine("POST", "/mcp", 200, 1.234, { rpc: "tools/list", session: "abcdef01", label: "ci" })).toBe(
      "http POST /mcp 200 1.2ms rpc=tools/list session=abcdef01 token=ci",
    );
    expect(accessLine("GET", "/healthz", 200, 0, {})).toBe("http GET /healthz 200 0.0ms");
    expect(accessLine("POST", "/mcp", 200, 0, { rpc: "a b\nc" })).toBe('http POST /mcp 200 0.0ms rpc="a b\\nc"');
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
