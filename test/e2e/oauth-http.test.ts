import { freePort } from "../helpers/free-port.ts";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { ClientCredentialsProvider, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { join } from "node:path";
import { makeFixture, type Fixture, writeTokenFile } from "../helpers/fixture.ts";
import {
  accessLog,
  connectHttp,
  INITIALIZE,
  postJson,
  startHttpServer,
  type HttpServer,
} from "../helpers/http-server.ts";
import { clientCredentials, JWT_CLIENT, startProvider, type Provider } from "../helpers/oauth.ts";
import { newClient, SOURCE_TARGET } from "../helpers/server.ts";

/**
 * `mcp --http` as an OAuth resource server, end to end: the real server process, `oidc-provider`
 * issuing JWT access tokens for its public URL, and the SDK's v2 client running its own OAuth
 * flow from our 401 and metadata.
 */
const target = SOURCE_TARGET;
const STATIC = "static-token-0123456789abcdef";
let provider: Provider;
let fixture: Fixture;
let servers: HttpServer[] = [];

const config = (publicUrl: string | undefined, extra = "") =>
  `http:\n${publicUrl ? `  publicUrl: ${publicUrl}\n` : ""}  oauth:\n    issuer: ${provider.issuer}\n    scopes: [skills:read]\n${extra}`;

/** `mcp --http` with the fixture's config, expected not to start: its exit code and stderr. */
async function refusedStart(): Promise<{ code: number; stderr: string }> {
  const proc = Bun.spawn([target.command, ...target.args, "--http", "--port", "0"], {
    cwd: fixture.cwd,
    env: { HOME: fixture.home, PATH: process.env.PATH ?? "" },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
  return { code, stderr };
}

/** A server on a port chosen first: its public URL (the tokens' audience) names the port. */
async function start(
  args: string[] = [],
  env: Record<string, string> = {},
): Promise<HttpServer & { publicUrl: string }> {
  const port = freePort();
  const publicUrl = `http://127.0.0.1:${port}/mcp`;
  fixture.write("skill-central.yaml", config(publicUrl));
  const server = await startHttpServer({
    target,
    cwd: fixture.cwd,
    home: fixture.home,
    args: ["--port", String(port), ...args],
    env,
  });
  servers.push(server);
  return { ...server, publicUrl };
}

const errorOf = async (response: Response) => ((await response.json()) as { error: { message: string } }).error;

beforeAll(async () => {
  provider = await startProvider();
  fixture = makeFixture({
    ".skills/echo.yaml": "id: echo\ndescription: Echoes\ntype: tool\ninputSchema: { type: object }\n",
  });
  writeTokenFile(join(fixture.root, "tokens"), `ci ${STATIC}\n`);
});
afterEach(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  servers = [];
});
afterAll(async () => {
  await provider?.stop();
  fixture?.cleanup();
});

describe("OAuth over HTTP", () => {
  test("a provider's token for our URL: 200 and MCP works; the log names the caller, never the token", async () => {
    const server = await start();
    expect(server.stderr()).toContain(`OAuth access tokens from ${provider.issuer}`);
    const token = await clientCredentials(provider.issuer, JWT_CLIENT, server.publicUrl);
    for (const era of ["legacy", "modern"] as const) {
      const { client } = await connectHttp(server.url, era, { Authorization: `Bearer ${token}` });
      expect((await client.listTools()).tools.map((t) => t.name)).toContain("echo");
      await client.close();
    }
    const lines = accessLog(server.stderr());
    expect(lines.some((l) => l.includes("rpc=tools/list") && l.endsWith("caller=skills-cli"))).toBe(true);
    expect(server.stderr()).not.toContain(token);
    expect(server.stderr()).not.toContain(token.split(".")[2]!);
  });

  test("no token: 401 naming the metadata and the scope; a bad one adds invalid_token; a missing scope is 403", async () => {
    const server = await start();
    const metadata = `${new URL(server.publicUrl).origin}/.well-known/oauth-protected-resource/mcp`;
    const missing = await postJson(server.url, INITIALIZE);
    expect(missing.status).toBe(401);
    expect(missing.headers.get("www-authenticate")).toBe(`Bearer scope="skills:read", resource_metadata="${metadata}"`);
    const other = await clientCredentials(provider.issuer, JWT_CLIENT, "http://127.0.0.1:9/elsewhere");
    const wrongAudience = await postJson(server.url, INITIALIZE, { Authorization: `Bearer ${other}` });
    expect(wrongAudience.status).toBe(401);
    expect(wrongAudience.headers.get("www-authenticate")).toBe(
      `Bearer error="invalid_token", scope="skills:read", resource_metadata="${metadata}"`,
    );
    expect((await errorOf(wrongAudience)).message).toBe("Unauthorized: the token is not for this server (aud)");
    const writeOnly = await clientCredentials(provider.issuer, JWT_CLIENT, server.publicUrl, "skills:write");
    const forbidden = await postJson(server.url, INITIALIZE, { Authorization: `Bearer ${writeOnly}` });
    expect(forbidden.status).toBe(403);
    expect(forbidden.headers.get("www-authenticate")).toBe(
      `Bearer error="insufficient_scope", scope="skills:read", resource_metadata="${metadata}"`,
    );
    expect(server.stderr()).not.toContain(other);
    expect(server.stderr()).not.toContain(writeOnly);
  });

  test("Protected Resource Metadata at both paths, unauthenticated, with CORS for a trusted origin; 404 without OAuth", async () => {
    const server = await start();
    const expected = {
      resource: server.publicUrl,
      authorization_servers: [provider.issuer],
      scopes_supported: ["skills:read"],
      bearer_methods_supported: ["header"],
    };
    for (const path of ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"]) {
      const response = await fetch(`${server.base}${path}`, { headers: { Origin: "http://localhost:6274" } });
      expect(response.status).toBe(200);
      expect(response.headers.get("access-control-allow-origin")).toBe("http://localhost:6274");
      expect(await response.json()).toEqual(expected);
    }
    const evil = await fetch(`${server.base}/.well-known/oauth-protected-resource`, {
      headers: { Origin: "https://evil.example" },
    });
    expect(evil.status).toBe(403);
    expect(
      accessLog(server.stderr()).some((l) => l.includes("GET /.well-known/oauth-protected-resource/mcp 200")),
    ).toBe(true);

    fixture.write("skill-central.yaml", "");
    const plain = await startHttpServer({ target, cwd: fixture.cwd, home: fixture.home });
    servers.push(plain);
    expect((await fetch(`${plain.base}/.well-known/oauth-protected-resource`)).status).toBe(404);
    expect(accessLog(plain.stderr()).at(-1)).toContain("GET /.well-known/oauth-protected-resource 404");
  });

  test("the SDK's v2 client runs its own flow from our 401 and metadata to a tools/list", async () => {
    const server = await start();
    const authProvider = new ClientCredentialsProvider({
      clientId: JWT_CLIENT.id,
      clientSecret: JWT_CLIENT.secret,
      scope: "skills:read",
      expectedIssuer: provider.issuer,
    });
    const transport = new StreamableHTTPClientTransport(new URL(server.publicUrl), { authProvider });
    const client = newClient("legacy");
    await client.connect(transport);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain("echo");
    await client.close();
    const lines = accessLog(server.stderr());
    expect(lines.some((l) => l.startsWith("[skill-central] http POST /mcp 401"))).toBe(true);
    expect(lines.some((l) => l.includes("GET /.well-known/oauth-protected-resource/mcp 200"))).toBe(true);
    expect(lines.some((l) => l.includes("rpc=tools/list") && l.includes("caller=skills-cli"))).toBe(true);
  });

  test("static tokens keep working beside OAuth, logged by label; a session opened by one caller is not another's", async () => {
    const server = await start(["--token-file", join(fixture.root, "tokens"), "--host", "0.0.0.0"]);
    const { client, transport } = await connectHttp(server.url, "legacy", { Authorization: `Bearer ${STATIC}` });
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    expect(accessLog(server.stderr()).some((l) => l.endsWith("token=ci"))).toBe(true);
    const token = await clientCredentials(provider.issuer, JWT_CLIENT, server.publicUrl);
    const borrowed = await postJson(
      server.url,
      { jsonrpc: "2.0", id: 2, method: "tools/list" },
      {
        Authorization: `Bearer ${token}`,
        "Mcp-Session-Id": transport.sessionId!,
        "MCP-Protocol-Version": "2025-11-25",
      },
    );
    expect(borrowed.status).toBe(404);
    await client.close();
  });

  test("a sign-in value it cannot use refuses the start (exit 2), naming the file, line and column", async () => {
    fixture.write(
      "skill-central.yaml",
      `http:\n  publicUrl: http://127.0.0.1:9/mcp\n  oauth:\n    issuer: ${provider.issuer}\n    callerClaim: 'two words'\n`,
    );
    const { code, stderr } = await refusedStart();
    expect(code).toBe(2);
    expect(stderr).toContain(
      `${join(fixture.cwd, "skill-central.yaml")}:5:5: "http.oauth.callerClaim" must be a claim name; mcp --http will not start with it`,
    );
  });

  test("OAuth without a public URL refuses to start (exit 2); --public-url supplies it", async () => {
    fixture.write("skill-central.yaml", config(undefined));
    const { code, stderr } = await refusedStart();
    expect(code).toBe(2);
    expect(stderr).toContain("http.oauth needs the server's public URL");
    const port = freePort();
    const server = await startHttpServer({
      target,
      cwd: fixture.cwd,
      home: fixture.home,
      args: ["--port", String(port), "--public-url", `http://127.0.0.1:${port}/mcp`],
    });
    servers.push(server);
    expect((await postJson(server.url, INITIALIZE)).headers.get("www-authenticate")).toContain(
      `resource_metadata="http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp"`,
    );
  });
});
