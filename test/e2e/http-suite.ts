import type { Client } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import pkg from "../../package.json" with { type: "json" };
import { makeFixture, promptSkill, type Fixture } from "../helpers/fixture.ts";
import {
  accessLog,
  connectHttp,
  INITIALIZE,
  postJson,
  startHttpServer,
  type HttpServer,
} from "../helpers/http-server.ts";
import { wireError, type ServerTarget } from "../helpers/server.ts";
import { eventually, ListChanges, textOf } from "./live-session.ts";

const PROJECT = {
  ".skills/kmp-expert.yaml":
    "id: kmp-expert\ndescription: Kotlin Multiplatform expertise\ntype: prompt\ntags: [kmp]\nprompt: 'Share code across {{platforms}}.'\n",
  ".skills/echo.yaml":
    "id: echo\ndescription: Echoes\ntype: tool\ninputSchema: { type: object, properties: { word: { type: string } }, required: [word] }\nprompt: 'Echo {{word}}'\n",
};

/** The answers both eras must agree on, through the SDK's own client. */
async function sameAnswers(client: Client): Promise<void> {
  expect(client.getServerVersion()).toEqual({ name: "skill-central", version: pkg.version });
  const names = (await client.listPrompts()).prompts.map((p) => p.name);
  expect(names).toContain("kmp-expert");
  expect(names).toContain("review-pr");
  expect(textOf(await client.getPrompt({ name: "kmp-expert", arguments: { platforms: "iOS" } }))).toBe(
    "Share code across iOS.",
  );
  expect(await client.callTool({ name: "echo", arguments: { word: "hi" } })).toMatchObject({
    content: [{ type: "text", text: "Echo hi" }],
  });
  expect(await client.callTool({ name: "echo", arguments: {} })).toMatchObject({ isError: true });
  expect(await wireError(client.getPrompt({ name: "nope" }))).toEqual({
    code: -32602,
    message: "Unknown prompt skill: nope",
  });
  expect(await wireError(client.callTool({ name: "nope", arguments: {} }))).toEqual({
    code: -32602,
    message: "Unknown tool: nope",
  });
  const { contents } = await client.readResource({ uri: "skill-central://skills/echo" });
  expect(JSON.parse((contents[0] as { text: string }).text).id).toBe("echo");
  const tags = await client.complete({
    ref: { type: "ref/prompt", name: "skills:compose" },
    argument: { name: "tags", value: "km" },
  });
  expect(tags.completion.values).toEqual(["kmp"]);
}

/** `skill-central mcp --http`: both protocol eras on one port, sessions for 2025-11-25, and --stateless. */
export function httpSuite(target: ServerTarget): void {
  describe(`MCP over HTTP (${target.name})`, () => {
    let fixture: Fixture;
    let server: HttpServer;
    const open: Client[] = [];
    const connect = async (era: "legacy" | "modern") => {
      const connected = await connectHttp(server.url, era);
      open.push(connected.client);
      return connected;
    };

    beforeAll(async () => {
      fixture = makeFixture(PROJECT);
      server = await startHttpServer({ target, cwd: fixture.cwd, home: fixture.home });
    });
    afterAll(async () => {
      await Promise.allSettled(open.map((c) => c.close()));
      await server?.stop();
      fixture?.cleanup();
    });

    test("listens on 127.0.0.1 by default and says so", () => {
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
      expect(server.stderr()).toContain("no authentication, this machine only");
    });

    test("a 2025-11-25 client gets a session (Mcp-Session-Id) and the same answers as over stdio", async () => {
      const { client, transport } = await connect("legacy");
      expect(client.getProtocolEra()).toBe("legacy");
      expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
      await sameAnswers(client);
    });

    test("a 2026-07-28 client on the same port is served statelessly: no session, cache fields on lists", async () => {
      const { client, transport } = await connect("modern");
      expect(client.getProtocolEra()).toBe("modern");
      expect(transport.sessionId).toBeUndefined();
      await sameAnswers(client);
      const listed = (await client.request({ method: "tools/list", params: {} })) as {
        ttlMs?: number;
        cacheScope?: string;
      };
      expect({ ttlMs: listed.ttlMs, cacheScope: listed.cacheScope }).toEqual({ ttlMs: 0, cacheScope: "private" });
    });

    test("after a reload, list_changed reaches a session's SSE stream and a 2026-07-28 subscriptions/listen stream", async () => {
      const { client: legacy, transport } = await connect("legacy");
      const modern = (await connect("modern")).client;
      const legacyChanges = new ListChanges(legacy);
      const modernChanges = new ListChanges(modern);
      const subscription = await modernChanges.listen();
      // The client opens the session's GET stream right after initializing; wait until it is up.
      const streamOpened = new RegExp(`http GET /mcp 200 \\S+ session=${transport.sessionId!.slice(0, 8)}`);
      await eventually(() => expect(server.stderr()).toMatch(streamOpened));
      try {
        fixture.write(".skills/added.yaml", promptSkill("added"));
        await legacyChanges.waitFor("prompts", 1);
        await modernChanges.waitFor("prompts", 1);
        expect(legacyChanges.counts.tools).toBe(0);
        expect((await legacy.listPrompts()).prompts.map((p) => p.name)).toContain("added");
        expect((await modern.listPrompts()).prompts.map((p) => p.name)).toContain("added");
      } finally {
        await subscription.close();
      }
    });

    test("DELETE ends a session: its id is then unknown (404), and a request without one is refused (400)", async () => {
      const { transport } = await connect("legacy");
      const id = transport.sessionId!;
      await transport.terminateSession();
      const after = await postJson(
        server.url,
        { jsonrpc: "2.0", id: 2, method: "tools/list" },
        { "Mcp-Session-Id": id, "MCP-Protocol-Version": "2025-11-25" },
      );
      expect(after.status).toBe(404);
      expect(((await after.json()) as { error: { message: string } }).error.message).toContain("Session not found");
      const none = await postJson(server.url, { jsonrpc: "2.0", id: 3, method: "tools/list" });
      expect(none.status).toBe(400);
    });

    test("a batch, an id null and a body that is not JSON are refused with the JSON-RPC error and id null", async () => {
      const batch = await postJson(server.url, [INITIALIZE]);
      expect(batch.status).toBe(400);
      expect(await batch.json()).toEqual({
        jsonrpc: "2.0",
        id: null,
        error: { code: -32600, message: expect.stringContaining("batches are not supported") },
      });
      const nullId = await postJson(server.url, { jsonrpc: "2.0", id: null, method: "ping" });
      expect(nullId.status).toBe(400);
      expect(((await nullId.json()) as { id: unknown }).id).toBeNull();
      const garbage = await postJson(server.url, "{not json");
      expect(garbage.status).toBe(400);
      expect(((await garbage.json()) as { error: { code: number } }).error.code).toBe(-32700);
    });

    test("every request is one access-log line: method, path, status, time, JSON-RPC method and session", async () => {
      const { transport } = await connect("legacy");
      const short = transport.sessionId!.slice(0, 8);
      await eventually(() => {
        const lines = accessLog(server.stderr());
        expect(
          lines.some((l) =>
            new RegExp(`^\\[skill-central\\] http POST /mcp 200 \\d+\\.\\dms rpc=initialize session=${short}$`).test(l),
          ),
        ).toBe(true);
        expect(lines.some((l) => /^\[skill-central\] http POST \/mcp 200 \d+\.\dms rpc=tools\/call$/.test(l))).toBe(
          true,
        );
        expect(lines.some((l) => /^\[skill-central\] http POST \/mcp 404 /.test(l))).toBe(true);
      });
    });

    test("GET /healthz is alive and GET /readyz reports the loaded skills", async () => {
      expect(await (await fetch(`${server.base}/healthz`)).json()).toEqual({ status: "ok" });
      const ready = await fetch(`${server.base}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toMatchObject({
        status: "ready",
        prompts: expect.any(Number),
        tools: expect.any(Number),
      });
      expect((await fetch(`${server.base}/elsewhere`)).status).toBe(404);
    });
  });

  describe(`MCP over HTTP with --stateless (${target.name})`, () => {
    let fixture: Fixture;
    let server: HttpServer;

    beforeAll(async () => {
      fixture = makeFixture(PROJECT);
      server = await startHttpServer({ target, cwd: fixture.cwd, home: fixture.home, args: ["--stateless"] });
    });
    afterAll(async () => {
      await server?.stop();
      fixture?.cleanup();
    });

    test("2025-11-25 requests get no session and GET has nothing to stream (405); both eras answer alike", async () => {
      const init = await postJson(server.url, INITIALIZE);
      expect(init.status).toBe(200);
      expect(init.headers.get("mcp-session-id")).toBeNull();
      expect((await fetch(server.url, { headers: { Accept: "text/event-stream" } })).status).toBe(405);
      for (const era of ["legacy", "modern"] as const) {
        const { client } = await connectHttp(server.url, era);
        try {
          await sameAnswers(client);
        } finally {
          await client.close();
        }
      }
    });

    test("a 2026-07-28 client still hears of a reload on its subscriptions/listen stream", async () => {
      const { client } = await connectHttp(server.url, "modern");
      const changes = new ListChanges(client);
      const subscription = await changes.listen();
      try {
        fixture.write(".skills/echo2.yaml", PROJECT[".skills/echo.yaml"].replace("id: echo", "id: echo2"));
        await changes.waitFor("tools", 1);
        expect(client.getProtocolEra()).toBe("modern");
        expect((await client.listTools()).tools.map((t) => t.name)).toContain("echo2");
      } finally {
        await subscription.close();
        await client.close();
      }
    });
  });
}
