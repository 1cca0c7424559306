import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, writeFileSync } from "node:fs";
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
import { SOURCE_TARGET } from "../helpers/server.ts";
import { eventually } from "./live-session.ts";

const target = SOURCE_TARGET;
const ALICE = "alice-token-0123456789abcdef";
const BOB = "bob-token-fedcba9876543210xyz";
const ENV_TOKEN = "env-token-aaaaaaaaaaaaaaaaaaaa";

/** Runs the CLI to completion (a server that refuses to start), with its output. */
async function refused(
  args: string[],
  cwd: string,
  home: string,
  env: Record<string, string> = {},
): Promise<{ code: number; stderr: string }> {
  const proc = Bun.spawn([target.command, ...target.args, "--http", ...args], {
    cwd,
    env: { HOME: home, PATH: process.env.PATH ?? "", ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const timer = setTimeout(() => proc.kill("SIGKILL"), 10_000);
  const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
  clearTimeout(timer);
  return { code, stderr };
}

let fixture: Fixture;
let servers: HttpServer[] = [];
const start = async (args: string[], env: Record<string, string> = {}) => {
  const server = await startHttpServer({ target, cwd: fixture.cwd, home: fixture.home, args, env });
  servers.push(server);
  return server;
};

beforeAll(() => {
  fixture = makeFixture({
    ".skills/echo.yaml": "id: echo\ndescription: Echoes\ntype: tool\ninputSchema: { type: object }\n",
  });
  writeTokenFile(join(fixture.root, "tokens"), `# the team's tokens\nalice ${ALICE}\n\n  bob   ${BOB}  \n`);
});
afterEach(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  servers = [];
});
afterAll(() => fixture?.cleanup());

describe("bearer tokens", () => {
  test("without a token, or with a wrong or malformed one: 401 with WWW-Authenticate: Bearer; with one: served, its label in the log, never the token", async () => {
    const server = await start(["--token-file", join(fixture.root, "tokens")]);
    expect(server.stderr()).toContain("2 bearer tokens");
    const missing = await postJson(server.url, INITIALIZE);
    expect(missing.status).toBe(401);
    expect(missing.headers.get("www-authenticate")).toBe('Bearer realm="skill-central"');
    expect(((await missing.json()) as { error: { code: number; message: string } }).error).toEqual({
      code: -32001,
      message: "Unauthorized: a bearer token is required",
    });
    const wrong = await postJson(server.url, INITIALIZE, { Authorization: `Bearer ${ALICE}x` });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get("www-authenticate")).toBe('Bearer realm="skill-central", error="invalid_token"');
    expect((await postJson(server.url, INITIALIZE, { Authorization: `Basic ${ALICE}` })).status).toBe(401);

    const { client } = await connectHttp(server.url, "legacy", { Authorization: `Bearer ${BOB}` });
    expect((await client.listTools()).tools.map((t) => t.name)).toContain("echo");
    await client.close();
    const modern = await connectHttp(server.url, "modern", { Authorization: `Bearer ${ALICE}` });
    expect((await modern.client.listTools()).tools.map((t) => t.name)).toContain("echo");
    await modern.client.close();

    // The access log reaches us through the server's stderr pipe, a moment after the answers.
    await eventually(() => {
      const log = accessLog(server.stderr());
      expect(log.some((l) => /POST \/mcp 200 .* token=bob$/.test(l))).toBe(true);
      expect(log.some((l) => /POST \/mcp 200 .* token=alice$/.test(l))).toBe(true);
      expect(log.some((l) => /POST \/mcp 401 /.test(l))).toBe(true);
    });
    expect(server.stderr()).not.toContain(ALICE);
    expect(server.stderr()).not.toContain(BOB);
  });

  test("a session opened with one token is not found with another", async () => {
    const server = await start(["--token-file", join(fixture.root, "tokens")]);
    const { client, transport } = await connectHttp(server.url, "legacy", { Authorization: `Bearer ${ALICE}` });
    const other = await postJson(
      server.url,
      { jsonrpc: "2.0", id: 2, method: "tools/list" },
      { Authorization: `Bearer ${BOB}`, "Mcp-Session-Id": transport.sessionId!, "MCP-Protocol-Version": "2025-11-25" },
    );
    expect(other.status).toBe(404);
    await client.close();
  });

  test(`the ${"SKILL_CENTRAL_TOKEN"} variable adds a token labelled env`, async () => {
    const server = await start([], { SKILL_CENTRAL_TOKEN: ENV_TOKEN });
    expect((await postJson(server.url, INITIALIZE)).status).toBe(401);
    expect((await postJson(server.url, INITIALIZE, { Authorization: `Bearer ${ENV_TOKEN}` })).status).toBe(200);
    await eventually(() => expect(accessLog(server.stderr()).at(-1)).toMatch(/ token=env$/));
  });

  test("a token in the query string is refused (400) and appears nowhere in the log", async () => {
    const server = await start(["--token-file", join(fixture.root, "tokens")]);
    for (const query of [`?access_token=${ALICE}`, `?token=${ALICE}`, `?x=${ALICE}`]) {
      const response = await postJson(`${server.url}${query}`, INITIALIZE, { Authorization: `Bearer ${ALICE}` });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: { message: string } }).error.message).toContain(
        "Authorization: Bearer",
      );
    }
    await eventually(() =>
      expect(accessLog(server.stderr()).filter((l) => l.includes("POST /mcp 400"))).toHaveLength(3),
    );
    expect(server.stderr()).not.toContain(ALICE);
  });

  test("an address other machines can reach refuses to start without tokens; a bad token file refuses without quoting tokens", async () => {
    const open = await refused(["--host", "0.0.0.0", "--port", "0"], fixture.cwd, fixture.home);
    expect(open.code).toBe(2);
    expect(open.stderr).toContain("--host 0.0.0.0 can be reached from other machines; that needs bearer tokens");
    const short = join(fixture.root, "short-tokens");
    writeFileSync(short, "carol tooshort\n");
    const weak = await refused(["--token-file", short, "--port", "0"], fixture.cwd, fixture.home);
    expect(weak.code).toBe(2);
    expect(weak.stderr).toContain(`${short}:1: the token is shorter than 16 characters`);
    expect(weak.stderr).not.toContain("tooshort");
    const missing = await refused(
      ["--token-file", join(fixture.root, "nope"), "--port", "0"],
      fixture.cwd,
      fixture.home,
    );
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("--token-file: cannot read");
    const stdioOnly = Bun.spawnSync([target.command, ...target.args, "--port", "1"], {
      cwd: fixture.cwd,
      env: { HOME: fixture.home, PATH: process.env.PATH ?? "" },
      stderr: "pipe",
    });
    expect(stdioOnly.exitCode).toBe(2);
    expect(stdioOnly.stderr.toString()).toContain("--port applies to the HTTP server: add --http");
  });

  test("with tokens, the server listens on every address and a token file others can read draws a warning", async () => {
    const loose = join(fixture.root, "loose-tokens");
    writeFileSync(loose, `dave ${ALICE}\n`);
    chmodSync(loose, 0o644);
    const server = await start(["--host", "0.0.0.0", "--token-file", loose]);
    expect(server.url).toMatch(/^http:\/\/0\.0\.0\.0:\d+\/mcp$/);
    expect(server.stderr()).toContain("can be read by other users: chmod 600 it");
    const local = server.url.replace("0.0.0.0", "127.0.0.1");
    expect((await postJson(local, INITIALIZE, { Authorization: `Bearer ${ALICE}` })).status).toBe(200);
  });
});

describe("Host and Origin (DNS rebinding)", () => {
  test("a foreign Host or Origin is 403; a loopback one is served; --allow-origin admits one origin, with CORS", async () => {
    const server = await start(["--allow-origin", "https://app.example.com"]);
    const host = await postJson(server.url, INITIALIZE, { Host: "evil.example" });
    expect(host.status).toBe(403);
    const origin = await postJson(server.url, INITIALIZE, { Origin: "http://evil.example" });
    expect(origin.status).toBe(403);
    expect(((await origin.json()) as { error: { message: string } }).error.message).toContain("--allow-origin");
    const local = await postJson(server.url, INITIALIZE, { Origin: "http://localhost:6274" });
    expect(local.status).toBe(200);
    expect(local.headers.get("access-control-allow-origin")).toBe("http://localhost:6274");
    const allowed = await postJson(server.url, INITIALIZE, { Origin: "https://app.example.com" });
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get("access-control-expose-headers")).toContain("Mcp-Session-Id");
    const preflight = await fetch(server.url, {
      method: "OPTIONS",
      headers: { Origin: "https://app.example.com", "Access-Control-Request-Method": "POST" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-headers")).toContain("Authorization");
    const foreignPreflight = await fetch(server.url, { method: "OPTIONS", headers: { Origin: "http://evil.example" } });
    expect(foreignPreflight.status).toBe(403);
  });

  test("--allow-origin takes origins only", async () => {
    const bad = await refused(["--allow-origin", "app.example.com", "--port", "0"], fixture.cwd, fixture.home);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--allow-origin "app.example.com" is not an origin');
  });
});

describe("limits", () => {
  test("a body over 4 MiB is 413 and the server goes on", async () => {
    const server = await start([]);
    const huge = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "echo", arguments: { x: "y".repeat(4 * 1024 * 1024) } },
    });
    const response = await postJson(server.url, huge);
    expect(response.status).toBe(413);
    expect(((await response.json()) as { error: { code: number; message: string } }).error).toEqual({
      code: -32600,
      message: "Request too large: bodies are limited to 4 MiB",
    });
    expect((await postJson(server.url, INITIALIZE)).status).toBe(200);
  });

  test("--max-sessions caps open sessions (503, Retry-After); ending one makes room", async () => {
    const server = await start(["--max-sessions", "2"]);
    const first = await connectHttp(server.url, "legacy");
    const second = await connectHttp(server.url, "legacy");
    const third = await postJson(server.url, INITIALIZE);
    expect(third.status).toBe(503);
    expect(third.headers.get("retry-after")).toBe("5");
    await first.transport.terminateSession();
    expect((await postJson(server.url, INITIALIZE)).status).toBe(200);
    await Promise.all([first.client.close(), second.client.close()]);
  });

  test("--session-timeout closes a session idle that long (its id is then 404); an open stream keeps one alive", async () => {
    const server = await start(["--session-timeout", "1", "--max-sessions", "2"]);
    const init = await postJson(server.url, INITIALIZE);
    const idle = init.headers.get("mcp-session-id")!;
    const listening = await connectHttp(server.url, "legacy");
    // Both places are taken, so another initialize gets 503 until a session is closed: wait for
    // that (however late a busy machine runs the idle sweep), not for a time.
    while ((await postJson(server.url, INITIALIZE)).status === 503) await Bun.sleep(100);
    const late = await postJson(
      server.url,
      { jsonrpc: "2.0", id: 2, method: "tools/list" },
      { "Mcp-Session-Id": idle, "MCP-Protocol-Version": "2025-11-25" },
    );
    expect(late.status).toBe(404);
    expect((await listening.client.listTools()).tools.length).toBeGreaterThan(0);
    await listening.client.close();
  });

  test("a quiet SSE stream outlives Bun's idle timeout, carries keep-alive comments, and still carries list_changed", async () => {
    // --keepalive 1: a comment every second, and Bun's idle timeout is 3 s, which (writes do not
    // reset it) would cut a plain streaming response within about 6 s.
    const server = await start(["--keepalive", "1"]);
    const init = await postJson(server.url, INITIALIZE);
    const session = init.headers.get("mcp-session-id")!;
    const headers = { "Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-11-25" };
    await postJson(server.url, { jsonrpc: "2.0", method: "notifications/initialized" }, headers);
    const stream = await fetch(server.url, { headers: { ...headers, Accept: "text/event-stream" } });
    expect(stream.status).toBe(200);
    const reader = stream.body!.getReader();
    const decoder = new TextDecoder();
    let text = "";
    // Until the needle arrives or the stream ends (the test's timeout bounds the wait).
    const readUntil = async (needle: string) => {
      while (!text.includes(needle)) {
        const next = await reader.read();
        if (next.done) break;
        text += decoder.decode(next.value, { stream: true });
      }
      return text.includes(needle);
    };
    // Past the time Bun would have cut a plain streaming response: the point of the test.
    await Bun.sleep(7_000);
    expect(await readUntil(": keepalive")).toBe(true);
    fixture.write(".skills/later.yaml", "id: later\ndescription: Later\ntype: tool\ninputSchema: { type: object }\n");
    expect(await readUntil("notifications/tools/list_changed")).toBe(true);
    await reader.cancel();
    fixture.remove(".skills/later.yaml");
  }, 60_000);
});

/** Enough skill files that the first load outlasts the set-up of the request that waits for it. */
const LIFECYCLE_FILES = 4000;

describe("lifecycle", () => {
  test("SIGTERM: a request in flight is answered, open streams end, the process exits 0", {
    timeout: 60_000,
  }, async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < LIFECYCLE_FILES; i++)
      files[`.skills/bulk/s${i}.yaml`] = `id: bulk-${i}\ndescription: Skill ${i}\ntype: prompt\nprompt: Body ${i}\n`;
    const big = makeFixture(files);
    try {
      // Keep-alive comments two minutes apart (past this test's timeout): the stream below can only open on the server's opening comment.
      const server = await startHttpServer({ target, cwd: big.cwd, home: big.home, args: ["--keepalive", "120"] });
      expect((await fetch(`${server.base}/readyz`)).status).toBe(503);
      const init = await postJson(server.url, INITIALIZE);
      const headers = { "Mcp-Session-Id": init.headers.get("mcp-session-id")!, "MCP-Protocol-Version": "2025-11-25" };
      await postJson(server.url, { jsonrpc: "2.0", method: "notifications/initialized" }, headers);
      // Bun sends a stream's headers with its first bytes: the server opens it with a comment, or this would wait two minutes.
      const stream = await fetch(server.url, { headers: { ...headers, Accept: "text/event-stream" } });
      // prompts/list waits for the first load, which is still running.
      const inFlight = postJson(server.url, { jsonrpc: "2.0", id: 2, method: "prompts/list" }, headers);
      await Bun.sleep(20);
      // Still loading, so prompts/list is still in flight when the signal arrives.
      expect((await fetch(`${server.base}/readyz`)).status).toBe(503);
      const exited = server.stop("SIGTERM");
      const response = await inFlight;
      expect(response.status).toBe(200);
      expect(((await response.json()) as { result: { prompts: unknown[] } }).result.prompts.length).toBeGreaterThan(
        LIFECYCLE_FILES,
      );
      const reader = stream.body!.getReader();
      const streamEnded = (async () => {
        for (;;) {
          const next = await reader.read().catch(() => ({ done: true as const, value: undefined }));
          if (next.done) return true;
        }
      })();
      expect(await exited).toBe(0);
      expect(await streamEnded).toBe(true);
      expect(server.stderr()).toContain("SIGTERM: finishing requests in flight, then stopping");
      await expect(fetch(`${server.base}/healthz`)).rejects.toThrow();
    } finally {
      big.cleanup();
    }
  });
});
