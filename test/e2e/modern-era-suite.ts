import type { Client } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import pkg from "../../package.json" with { type: "json" };
import { PROCESS_LIFETIME_TTL_MS } from "../../src/mcp/cache-hints.ts";
import { makeFixture, promptSkill, type Fixture } from "../helpers/fixture.ts";
import { connect, MODERN_VERSION, type Connected, type ServerTarget, wireError } from "../helpers/server.ts";
import { ListChanges, textOf } from "./live-session.ts";

interface Cached {
  ttlMs?: number;
  cacheScope?: string;
}

/**
 * A 2026-07-28 client (the SDK's v2 client pinned to that revision) over stdio: `server/discover`
 * instead of `initialize`, per-request envelopes, cache fields on what it may cache, and
 * list_changed on its `subscriptions/listen` stream.
 */
export function modernEraSuite(target: ServerTarget): void {
  describe(`2026-07-28 client over stdio (${target.name})`, () => {
    let fixture: Fixture;
    let session: Connected;
    let client: Client;

    beforeAll(async () => {
      fixture = makeFixture({
        ".skills/kmp-expert.yaml":
          "id: kmp-expert\ndescription: Kotlin Multiplatform expertise\ntype: prompt\ntags: [kmp]\nprompt: 'Share code across {{platforms}}.'\n",
        ".skills/echo.yaml":
          "id: echo\ndescription: Echoes\ntype: tool\ninputSchema: { type: object, properties: { word: { type: string } }, required: [word] }\nprompt: 'Echo {{word}}'\n",
      });
      session = await connect(target, fixture.cwd, fixture.home, [], "modern");
      client = session.client;
    });
    afterAll(async () => {
      await session?.close();
      fixture?.cleanup();
    });

    test("connects through server/discover: the modern era, our name and version, the same capabilities", async () => {
      expect(client.getProtocolEra()).toBe("modern");
      expect(client.getServerVersion()).toEqual({ name: "skill-central", version: pkg.version });
      expect(client.getServerCapabilities()).toEqual({
        prompts: { listChanged: true },
        tools: { listChanged: true },
        resources: { listChanged: true, subscribe: true },
        completions: {},
        extensions: { "io.modelcontextprotocol/skills": { directoryRead: true } },
      });
      expect(client.getInstructions()).toContain("skills:compose");
      const discovered = (await client.request({ method: "server/discover", params: {} })) as {
        supportedVersions: string[];
      } & Cached;
      expect(discovered.supportedVersions).toContain(MODERN_VERSION);
      // The instructions depend on the client (see the catalog), so no shared cache may reuse them.
      expect({ ttlMs: discovered.ttlMs, cacheScope: discovered.cacheScope }).toEqual({
        ttlMs: PROCESS_LIFETIME_TTL_MS,
        cacheScope: "private",
      });
    });

    test("lists carry cache fields that a reload cannot make false: never promised fresh while watched; the tool list, which depends on the client, private", async () => {
      for (const method of ["prompts/list", "tools/list", "resources/list"] as const) {
        const result = (await client.request({ method, params: {} })) as Cached;
        expect({ method, ttlMs: result.ttlMs, cacheScope: result.cacheScope }).toEqual({
          method,
          ttlMs: 0,
          cacheScope: method === "tools/list" ? "private" : "public",
        });
      }
      const templates = (await client.request({ method: "resources/templates/list", params: {} })) as Cached;
      expect(templates.ttlMs).toBe(PROCESS_LIFETIME_TTL_MS);
    });

    test("with --no-watch nothing changes while the process runs: lists are promised for the process-lifetime TTL", async () => {
      const fixed = await connect(target, fixture.cwd, fixture.home, ["--no-watch"], "modern");
      try {
        expect(fixed.client.getServerCapabilities()?.tools).toEqual({ listChanged: false });
        const result = (await fixed.client.request({ method: "tools/list", params: {} })) as Cached;
        expect({ ttlMs: result.ttlMs, cacheScope: result.cacheScope }).toEqual({
          ttlMs: PROCESS_LIFETIME_TTL_MS,
          cacheScope: "private",
        });
      } finally {
        await fixed.close();
      }
    });

    test("prompts, tools, resources and completions answer as for a 2025-11-25 client", async () => {
      expect(textOf(await client.getPrompt({ name: "kmp-expert", arguments: { platforms: "iOS" } }))).toBe(
        "Share code across iOS.",
      );
      expect(await client.callTool({ name: "echo", arguments: { word: "hi" } })).toMatchObject({
        content: [{ type: "text", text: "Echo hi" }],
      });
      expect((await client.callTool({ name: "echo", arguments: {} })).isError).toBe(true);
      const { contents } = await client.readResource({ uri: "skill-central://skills/echo" });
      expect(JSON.parse((contents[0] as { text: string }).text).id).toBe("echo");
      const tags = await client.complete({
        ref: { type: "ref/prompt", name: "skills:compose" },
        argument: { name: "tags", value: "km" },
      });
      expect(tags.completion.values).toEqual(["kmp"]);
    });

    test("errors are the same exact -32602 texts, with the URI in data for a missing resource", async () => {
      expect(await wireError(client.getPrompt({ name: "nope" }))).toEqual({
        code: -32602,
        message: "Unknown prompt skill: nope",
      });
      expect(await wireError(client.callTool({ name: "nope", arguments: {} }))).toEqual({
        code: -32602,
        message: "Unknown tool: nope",
      });
      const missing = (await client
        .request({ method: "resources/read", params: { uri: "skill-central://skills/nope" } })
        .catch((error: unknown) => error)) as { code: number; data?: unknown };
      expect(missing.code).toBe(-32602);
      expect(missing.data).toEqual({ uri: "skill-central://skills/nope" });
    });

    test("after a reload, list_changed arrives on the subscriptions/listen stream", async () => {
      const changes = new ListChanges(client);
      const subscription = await changes.listen();
      try {
        fixture.write(".skills/new-one.yaml", promptSkill("new-one"));
        await changes.waitFor("prompts", 1);
        await changes.waitFor("resources", 1);
        expect(changes.counts.tools).toBe(0);
        expect((await client.listPrompts()).prompts.map((p) => p.name)).toContain("new-one");
      } finally {
        await subscription.close();
      }
    });
  });
}
