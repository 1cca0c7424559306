import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkHttpServer } from "../../src/install/http-check.ts";
import type { CheckResult } from "../../src/install/check.ts";
import { checkStdioServer } from "../../src/install/stdio-check.ts";
import { REPO_ROOT, SOURCE_ENTRY } from "../helpers/server.ts";

/**
 * The verification step's clients against small fixture servers (each a few lines of Bun that
 * misbehaves in one way), the real server from source, and a fixture Streamable HTTP server.
 */

let dir: string;
const script = (name: string, body: string) => {
  const path = join(dir, `${name}.ts`);
  writeFileSync(path, body);
  return path;
};

/** A line-based stdio MCP server; `onMessage` decides what to send for each request. */
const serverBody = (onMessage: string) => `
const out = (m) => process.stdout.write(JSON.stringify(m) + "\\n");
let buffer = "";
for await (const chunk of Bun.stdin.stream()) {
  buffer += new TextDecoder().decode(chunk);
  let nl;
  while ((nl = buffer.indexOf("\\n")) >= 0) {
    const m = JSON.parse(buffer.slice(0, nl));
    buffer = buffer.slice(nl + 1);
    ${onMessage}
  }
}
`;

const GOOD = `
if (m.method === "initialize") out({ jsonrpc: "2.0", id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: {}, serverInfo: { name: "skill-central", version: process.cwd() + "|" + (process.env.FIXTURE_VALUE ?? "") } } });
if (m.method === "notifications/initialized") { out({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "hi" } }); out({ jsonrpc: "2.0", id: "s1", method: "roots/list" }); }
if (m.method === "tools/list") out({ jsonrpc: "2.0", id: m.id, result: { tools: [{ name: "a" }, { name: "b" }] } });
`;

const run = (
  path: string,
  options: { timeoutMs?: number; env?: Record<string, string>; cwd?: string } = {},
): Promise<CheckResult> =>
  checkStdioServer(
    {
      command: process.execPath,
      args: [path],
      env: { PATH: process.env.PATH, ...options.env },
      cwd: options.cwd ?? dir,
    },
    { timeoutMs: options.timeoutMs ?? 10_000, expectName: "skill-central" },
  );

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "skill-central-check-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("stdio check", () => {
  test("initialize + tools/list against a server that also sends a log and a request of its own", async () => {
    const cwd = mkdtempSync(join(dir, "cwd-"));
    const result = await run(script("good", serverBody(GOOD)), { env: { FIXTURE_VALUE: "from-env" }, cwd });
    // The server ran in the given folder with the given environment.
    expect(result).toEqual({
      ok: true,
      serverName: "skill-central",
      serverVersion: `${cwd}|from-env`,
      protocolVersion: "2025-11-25",
      tools: 2,
    });
  });

  test("the real server, from source", async () => {
    const result = await checkStdioServer(
      {
        command: process.execPath,
        args: [SOURCE_ENTRY, "mcp"],
        env: { HOME: dir, PATH: process.env.PATH },
        cwd: REPO_ROOT,
      },
      { timeoutMs: 20_000, expectName: "skill-central" },
    );
    expect(result.ok).toBe(true);
    if (result.ok) {
      expect(result.tools).toBeGreaterThan(0);
      // The built-in skills are prompts, most of what a client sees.
      expect(result.prompts).toBeGreaterThan(result.tools);
      expect(result.resources).toBeNumber();
    }
  });

  test("what the client will see: every page of prompts/list, tools/list and resources/list counted, the lists it offers only", async () => {
    // Two pages of prompts (and a cursor that repeats, which is not followed again), one of tools, two of resources.
    const paged = serverBody(`
const pages = {
  "prompts/list": { undefined: [["p1", "p2"], "c1"], c1: [["p3"], "c2"], c2: [["p4"], "c1"] },
  "tools/list": { undefined: [["t1", "t2"]] },
  "resources/list": { undefined: [["r1"], "n"], n: [["r2", "r3"]] },
};
const keys = { "prompts/list": "prompts", "tools/list": "tools", "resources/list": "resources" };
if (m.method === "initialize") out({ jsonrpc: "2.0", id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { prompts: {}, tools: {}, resources: {} }, serverInfo: { name: "skill-central", version: "1" } } });
if (pages[m.method]) {
  const [items, next] = pages[m.method][m.params?.cursor];
  out({ jsonrpc: "2.0", id: m.id, result: { [keys[m.method]]: items.map((name) => ({ name, uri: "x:" + name })), ...(next && { nextCursor: next }) } });
}
`);
    expect(await run(script("paged", paged))).toEqual({
      ok: true,
      serverName: "skill-central",
      serverVersion: "1",
      protocolVersion: "2025-11-25",
      prompts: 4,
      tools: 2,
      resources: 3,
    });
    // A server that offers no prompts nor resources is not asked for them (GOOD would not answer).
    const result = await run(script("tools-only", serverBody(GOOD)));
    expect(result.ok && [result.prompts, result.resources]).toEqual([undefined, undefined]);
  });

  test("a broken page of prompts/list names the list", async () => {
    const body = serverBody(`
if (m.method === "initialize") out({ jsonrpc: "2.0", id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { prompts: {} }, serverInfo: { name: "skill-central", version: "1" } } });
if (m.method === "prompts/list") out({ jsonrpc: "2.0", id: m.id, result: { items: [] } });
`);
    const result = await run(script("bad-prompts", body));
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toContain("the prompts/list result has no prompts array");
  });

  test("a server that exits: the exit code and the end of its stderr", async () => {
    const result = await run(
      script(
        "exits",
        'console.error("loading skills…"); console.error("fatal: cannot read /nope/config.yaml"); process.exit(3);',
      ),
    );
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.reason).toStartWith("exited with code 3 before answering initialize");
      expect(result.reason).toContain("fatal: cannot read /nope/config.yaml");
    }
  });

  test("a banner on stdout breaks clients, so it fails the check", async () => {
    const result = await run(script("banner", `console.log("Welcome to the server!");\n${serverBody(GOOD)}`));
    expect(result).toEqual({
      ok: false,
      reason: "wrote a line that is not JSON-RPC to stdout (clients drop such servers): Welcome to the server!",
    });
  });

  test("another server answering is not ours", async () => {
    const result = await run(
      script("other", serverBody(GOOD.replace('name: "skill-central"', 'name: "someone-else"'))),
    );
    expect(result).toEqual({ ok: false, reason: 'a server named "someone-else" answered, not skill-central' });
  });

  test("an error to tools/list", async () => {
    const body = serverBody(
      GOOD.replace(
        'result: { tools: [{ name: "a" }, { name: "b" }] }',
        'error: { code: -32603, message: "registry not loaded" }',
      ),
    );
    expect(await run(script("tools-error", body))).toEqual({
      ok: false,
      reason: "tools/list failed: error -32603: registry not loaded",
    });
  });

  // The server sleeps 60 s, twice this test's timeout: an answer at all shows the check stopped waiting.
  test("a server that never answers times out, and is stopped", async () => {
    const result = await run(script("silent", "await Bun.sleep(60_000);"), { timeoutMs: 300 });
    expect(result).toEqual({ ok: false, reason: "no answer to initialize within 0.3 s" });
  }, 30_000);

  test("a command that does not exist, or a folder that does not exist", async () => {
    const missing = await checkStdioServer(
      { command: join(dir, "no-such-binary"), args: ["mcp"], env: {}, cwd: dir },
      { timeoutMs: 1000, expectName: "skill-central" },
    );
    expect(missing).toEqual({
      ok: false,
      reason: `cannot start ${join(dir, "no-such-binary")} (in ${dir}): not found`,
    });
    const noCwd = await run(script("good2", serverBody(GOOD)), { cwd: join(dir, "gone") });
    expect(noCwd.ok).toBe(false);
  });
});

describe("HTTP check (a fixture Streamable HTTP server; the real HTTP mode is built separately)", () => {
  let server: ReturnType<typeof Bun.serve>;
  let seen: { method: string; session: string | null; version: string | null }[];

  beforeAll(() => {
    seen = [];
    server = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      async fetch(request) {
        const path = new URL(request.url).pathname;
        if (request.method === "DELETE") return new Response(null, { status: 200 });
        if (
          !(request.headers.get("accept") ?? "").includes("text/event-stream") ||
          !(request.headers.get("accept") ?? "").includes("application/json")
        )
          return new Response("Not Acceptable", { status: 406 });
        if (path !== "/open" && request.headers.get("authorization") !== "Bearer s3cret")
          return new Response("unauthorized", { status: 401 });
        const message = (await request.json()) as {
          id?: number;
          method: string;
          params?: { protocolVersion?: string };
        };
        seen.push({
          method: message.method,
          session: request.headers.get("mcp-session-id"),
          version: request.headers.get("mcp-protocol-version"),
        });
        if (path === "/slow") await Bun.sleep(5000);
        if (path === "/text") return new Response("hello", { headers: { "content-type": "text/plain" } });
        if (message.method === "initialize") {
          const name = path === "/impostor" ? "impostor" : "skill-central";
          return Response.json(
            {
              jsonrpc: "2.0",
              id: message.id,
              result: {
                protocolVersion: message.params!.protocolVersion,
                capabilities: {},
                serverInfo: { name, version: "1.2.3" },
              },
            },
            { headers: { "mcp-session-id": "session-1" } },
          );
        }
        if (message.method === "notifications/initialized") return new Response(null, { status: 202 });
        // tools/list answers as an event stream, as servers may.
        const body = `event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", id: message.id, result: { tools: [{ name: "t" }] } })}\n\n`;
        return new Response(body, { headers: { "content-type": "text/event-stream" } });
      },
    });
  });
  afterAll(() => server.stop(true));

  const url = (path: string) => `http://127.0.0.1:${server.port}${path}`;
  const check = (path: string, headers: Record<string, string>, timeoutMs = 5000) =>
    checkHttpServer({ url: url(path), headers }, { timeoutMs, expectName: "skill-central", tokenEnv: "SKILLS_TOKEN" });

  test("initialize (JSON answer), initialized, tools/list (event-stream answer) in the session the server opened", async () => {
    seen = [];
    expect(await check("/mcp", { Authorization: "Bearer s3cret" })).toEqual({
      ok: true,
      serverName: "skill-central",
      serverVersion: "1.2.3",
      protocolVersion: "2025-11-25",
      tools: 1,
    });
    expect(seen).toEqual([
      { method: "initialize", session: null, version: null },
      { method: "notifications/initialized", session: "session-1", version: "2025-11-25" },
      { method: "tools/list", session: "session-1", version: "2025-11-25" },
    ]);
  });

  test("a refused token names the variable, never the token", async () => {
    const result = await check("/mcp", { Authorization: "Bearer wrong-token-value" });
    expect(result).toEqual({
      ok: false,
      reason: "initialize: the server refused the request (HTTP 401): check the token in SKILLS_TOKEN",
    });
    expect(JSON.stringify(result)).not.toContain("wrong-token-value");
  });

  test("another server, an odd content type, a timeout, nothing listening", async () => {
    expect(await check("/impostor", { Authorization: "Bearer s3cret" })).toEqual({
      ok: false,
      reason: 'a server named "impostor" answered, not skill-central',
    });
    expect(await check("/text", { Authorization: "Bearer s3cret" })).toEqual({
      ok: false,
      reason: 'initialize: unexpected content type "text/plain" (expected application/json or text/event-stream)',
    });
    expect(await check("/slow", { Authorization: "Bearer s3cret" }, 200)).toEqual({
      ok: false,
      reason: "no answer to initialize within 0.2 s",
    });
    const closed = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
    const port = closed.port;
    closed.stop(true);
    const refused = await checkHttpServer(
      { url: `http://127.0.0.1:${port}/mcp`, headers: {} },
      { timeoutMs: 2000, expectName: "skill-central" },
    );
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.reason).toStartWith(`cannot reach http://127.0.0.1:${port}/mcp: `);
  });
});
