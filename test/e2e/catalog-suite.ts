import type { Client } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { catalogFixtureFiles, CATALOG_TOOL_IDS } from "../helpers/catalog-fixture.ts";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";
import { connect, wireError, type Connected, type ServerTarget } from "../helpers/server.ts";
import { textOf } from "./live-session.ts";

/** What a model in these clients sees of the server's tools: their names, and the names the client hands its model. */
export async function toolNames(client: Client): Promise<string[]> {
  return (await client.listTools()).tools.map((t) => t.name).sort();
}

export const CATALOG = ["find_skills", "load_skill"];
export const MODEL_TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

type Structured<T> = { structuredContent?: T; isError?: boolean; content: { type: string; text?: string }[] };
export type Found = {
  skills: { name: string; type: string; layer: string; uri: string; tags: string[]; description: string }[];
};

/**
 * What a tool-only client's model does with the catalog: find a prompt skill by what it needs,
 * load it with its arguments, read one file of a skill folder. Over the SDK's client, which also
 * checks every structured result against the tool's output schema.
 */
export async function usePromptSkillThroughTools(client: Client): Promise<void> {
  const found = (await client.callTool({
    name: "find_skills",
    arguments: { query: "blameless write-up after an outage" },
  })) as Structured<Found>;
  expect(found.isError).toBeUndefined();
  expect(found.structuredContent!.skills[0]).toEqual({
    name: "incident-postmortem",
    description: "Write a blameless postmortem after an incident or outage: timeline, impact, root cause, follow-ups.",
    tags: ["incident", "oncall"],
    type: "prompt",
    layer: "project",
    uri: "skill://incident-postmortem/SKILL.md",
  });
  expect(textOf(found)).toContain("| incident-postmortem | prompt | Write a blameless postmortem");

  const loaded = (await client.callTool({
    name: "load_skill",
    arguments: { name: "incident-postmortem", arguments: "payments outage on 2 March" },
  })) as Structured<{ text: string; files: { uri: string }[] }>;
  expect(loaded.isError).toBeUndefined();
  expect(loaded.structuredContent!.text).toContain("## Timeline");
  expect(loaded.structuredContent!.text).toContain("Work on: payments outage on 2 March");
  expect(loaded.structuredContent!.files.map((f) => f.uri)).toEqual([
    "skill://incident-postmortem/references/examples/payments-outage.md",
    "skill://incident-postmortem/references/template.md",
  ]);
  expect(textOf(loaded)).toContain(
    "- references/template.md (46 bytes) skill://incident-postmortem/references/template.md",
  );

  const file = (await client.callTool({
    name: "load_skill",
    arguments: { name: "incident-postmortem", path: "references/template.md" },
  })) as Structured<{ mimeType: string }>;
  expect(textOf(file)).toBe("# Postmortem template\n\n## Timeline\n\n## Impact\n");
  expect(file.structuredContent).toMatchObject({
    uri: "skill://incident-postmortem/references/template.md",
    mimeType: "text/markdown",
    size: 46,
  });

  const yamlPrompt = (await client.callTool({
    name: "load_skill",
    arguments: { name: "review-pr", arguments: { subject: "the login change" } },
  })) as Structured<{ text: string }>;
  expect(yamlPrompt.structuredContent!.text).toContain("Apply review-pr to the login change.");

  const unknown = (await client.callTool({
    name: "load_skill",
    arguments: { name: "postmortem" },
  })) as Structured<never>;
  expect({ content: unknown.content, isError: unknown.isError }).toEqual({
    content: [
      {
        type: "text",
        text: 'Unknown skill: "postmortem". Nearest names: incident-postmortem, test-strategy, house-style. find_skills searches them all.',
      },
    ],
    isError: true,
  });
}

export function catalogSuite(target: ServerTarget): void {
  describe(`the catalog over stdio (${target.name})`, () => {
    let fixture: Fixture;
    const sessions: Connected[] = [];
    const open = async (name: string, args: string[] = [], era: "legacy" | "modern" = "legacy") => {
      const session = await connect(target, fixture.cwd, fixture.home, args, era, { name });
      sessions.push(session);
      return session.client;
    };

    beforeAll(() => {
      fixture = makeFixture(catalogFixtureFiles());
    });
    afterAll(async () => {
      await Promise.all(sessions.map((s) => s.close()));
      fixture?.cleanup();
    });

    test("Windsurf (windsurf-client) sees find_skills and load_skill beside the tool skills, and its model can use a prompt skill and a folder's file", async () => {
      const client = await open("windsurf-client");
      expect(await toolNames(client)).toEqual([...CATALOG, ...CATALOG_TOOL_IDS].sort());
      expect(client.getInstructions()).toContain("call find_skills with a few words");
      expect(client.getInstructions()).toContain("incident-postmortem (Write a blameless postmortem");
      await usePromptSkillThroughTools(client);
    });

    test("the catalog tools are read-only, titled, and declare output schemas", async () => {
      const client = await open("windsurf-client");
      const tools = (await client.listTools()).tools.filter((t) => CATALOG.includes(t.name));
      for (const tool of tools) {
        expect(tool.title).toBeString();
        expect(tool.annotations).toEqual({
          readOnlyHint: true,
          destructiveHint: false,
          idempotentHint: true,
          openWorldHint: false,
        });
        expect(tool.outputSchema?.type).toBe("object");
        expect(tool.description!.length).toBeLessThanOrEqual(2048);
      }
    });

    test("Codex (codex-mcp-client) sees the catalog too; a tool skill called through run_skill_tool or directly answers the same", async () => {
      const client = await open("codex-mcp-client");
      expect(await toolNames(client)).toEqual([...CATALOG, ...CATALOG_TOOL_IDS].sort());
      await usePromptSkillThroughTools(client);
      const described = (await client.callTool({
        name: "load_skill",
        arguments: { name: "regex-builder" },
      })) as Structured<{ inputSchema: unknown }>;
      expect(described.structuredContent!.inputSchema).toMatchObject({ required: ["input"] });
      expect(textOf(described)).toContain('Call it as the tool "regex-builder"');
    });

    test("Claude Code (claude-code) sees prompts and tool skills as before, and no catalog tools", async () => {
      const client = await open("claude-code");
      expect(await toolNames(client)).toEqual([...CATALOG_TOOL_IDS].sort());
      const prompts = (await client.listPrompts()).prompts.map((p) => p.name);
      expect(prompts).toContain("incident-postmortem");
      expect(prompts).toContain("review-pr");
      expect(client.getInstructions()).toContain("prompt skills are MCP prompts");
      expect(await wireError(client.callTool({ name: "find_skills", arguments: {} }))).toEqual({
        code: -32602,
        message: "Unknown tool: find_skills",
      });
    });

    test("--catalog on gives Claude Code the catalog tools as well", async () => {
      const client = await open("claude-code", ["--catalog", "on"]);
      expect(await toolNames(client)).toEqual([...CATALOG, ...CATALOG_TOOL_IDS].sort());
      await usePromptSkillThroughTools(client);
    });

    test("--catalog off gives Windsurf none", async () => {
      const client = await open("windsurf-client", ["--catalog", "off"]);
      expect(await toolNames(client)).toEqual([...CATALOG_TOOL_IDS].sort());
    });

    test("a skill only people may run is never found, loaded or suggested through the catalog", async () => {
      const client = await open("windsurf-client");
      const found = (await client.callTool({
        name: "find_skills",
        arguments: { query: "deploy the service to an environment", limit: 50 },
      })) as Structured<Found>;
      expect(found.structuredContent!.skills.map((s) => s.name)).not.toContain("deploy");
      const listed = (await client.callTool({ name: "find_skills", arguments: { limit: 50 } })) as Structured<Found>;
      expect(listed.structuredContent!.skills.map((s) => s.name)).not.toContain("deploy");
      expect(listed.structuredContent!.skills.map((s) => s.name)).toContain("house-style");
      const loaded = (await client.callTool({
        name: "load_skill",
        arguments: { name: "deploy" },
      })) as Structured<never>;
      expect(loaded.isError).toBe(true);
      expect(client.getInstructions()).not.toContain("deploy");
    });

    test("find_skills: no query lists alphabetically, tags narrow, limit cuts, bad arguments get tool-style messages", async () => {
      const client = await open("windsurf-client");
      const first = (await client.callTool({ name: "find_skills", arguments: { limit: 3 } })) as Structured<Found>;
      expect(first.structuredContent!.skills.map((s) => s.name)).toEqual([
        "accessibility-audit",
        "api-design",
        "changelog-entry",
      ]);
      expect(textOf(first)).toStartWith("3 of 51 skills:");
      const tagged = (await client.callTool({
        name: "find_skills",
        arguments: { tags: ["Database"] },
      })) as Structured<Found>;
      expect(tagged.structuredContent!.skills.map((s) => s.name)).toEqual([
        "db-index-advisor",
        "db-migration",
        "sql-query-review",
      ]);
      const none = (await client.callTool({
        name: "find_skills",
        arguments: { query: "quantum chromodynamics" },
      })) as Structured<Found>;
      expect(none.structuredContent).toEqual({ skills: [] });
      expect(textOf(none)).toStartWith('No skill matches "quantum chromodynamics".');
      const bad = await client.callTool({ name: "find_skills", arguments: { limit: 500, colour: "red" } });
      expect(bad).toEqual({
        content: [
          {
            type: "text",
            text: 'Unexpected argument "colour": the tool does not accept it\nArgument "limit" must be <= 50',
          },
        ],
        isError: true,
      });
    });

    test("2026-07-28: the mode follows the clientInfo each request carries", async () => {
      const windsurf = await open("windsurf-client", [], "modern");
      expect(await toolNames(windsurf)).toEqual([...CATALOG, ...CATALOG_TOOL_IDS].sort());
      await usePromptSkillThroughTools(windsurf);
      const claude = await open("claude-code", [], "modern");
      expect(await toolNames(claude)).toEqual([...CATALOG_TOOL_IDS].sort());
    });

    test("every tool name any client is shown fits ^[a-zA-Z0-9_-]{1,64}$ with the mcp__skill-central__ prefix", async () => {
      for (const name of ["windsurf-client", "claude-code", "cursor-vscode"]) {
        const client = await open(name);
        for (const tool of await toolNames(client)) expect(`mcp__skill-central__${tool}`).toMatch(MODEL_TOOL_NAME);
      }
    });
  });
}

type Paged = Found & { nextCursor?: string };

/** 120 prompt skills, every one about widgets: more than a page (50 at most) of any search. */
function manyWidgetSkills(): Record<string, string> {
  const files: Record<string, string> = { "skill-central.yaml": "builtin: false\n" };
  for (let i = 0; i < 120; i++) {
    const id = `widget-${String(i).padStart(3, "0")}`;
    files[`.skills/${id}.yaml`] =
      `id: ${id}\ndescription: Check widget number ${i} of the assembly line${i % 3 === 0 ? " and its widget gauges" : ""}\ntype: prompt\ntags: [${i % 2 === 0 ? "even" : "odd"}]\nprompt: Go\n`;
  }
  return files;
}

/**
 * `find_skills` pages like the list methods (issue 46): a page of `limit` skills at most, and
 * `nextCursor` while there are more, so "find_skills lists them all" (the instructions' words)
 * holds for any catalog. Over the SDK's client, which checks each result against the tool's
 * output schema.
 */
export function findSkillsPagingSuite(target: ServerTarget): void {
  describe(`find_skills pages with a cursor (${target.name})`, () => {
    let fixture: Fixture;
    let session: Connected | undefined;
    beforeAll(() => {
      fixture = makeFixture(manyWidgetSkills());
    });
    afterAll(async () => {
      await session?.close();
      fixture?.cleanup();
    });

    const all = async (client: Client, args: Record<string, unknown>): Promise<{ pages: Paged[]; texts: string[] }> => {
      const pages: Paged[] = [];
      const texts: string[] = [];
      let cursor: string | undefined;
      do {
        const result = (await client.callTool({
          name: "find_skills",
          arguments: { ...args, ...(cursor !== undefined && { cursor }) },
        })) as Structured<Paged>;
        expect(result.isError).toBeUndefined();
        pages.push(result.structuredContent!);
        texts.push(textOf(result));
        cursor = result.structuredContent!.nextCursor;
      } while (cursor !== undefined && pages.length < 100);
      return { pages, texts };
    };

    test("no query: 50, 50 and 20 skills, alphabetical, each once; the instructions' 'and N more' are all reachable", async () => {
      session = await connect(target, fixture.cwd, fixture.home, [], "legacy", { name: "windsurf-client" });
      const { client } = session;
      const { pages, texts } = await all(client, { limit: 50 });
      expect(pages.map((p) => p.skills.length)).toEqual([50, 50, 20]);
      expect(pages.map((p) => p.nextCursor === undefined)).toEqual([false, false, true]);
      const names = pages.flatMap((p) => p.skills.map((s) => s.name));
      expect(names).toEqual(Array.from({ length: 120 }, (_, i) => `widget-${String(i).padStart(3, "0")}`));
      expect(texts[0]).toStartWith("50 of 120 skills:");
      expect(texts[0]).toContain(
        `70 more: find_skills {"limit":50,"cursor":"${pages[0]!.nextCursor}"} gives the next page.`,
      );
      expect(texts[1]).toStartWith("51–100 of 120 skills:");
      expect(texts[2]).toStartWith("101–120 of 120 skills:");
      expect(texts[2]).not.toContain("more:");

      const instructions = client.getInstructions() ?? "";
      const more = /and (\d+) more \(find_skills lists them all\)/.exec(instructions);
      expect(more).not.toBeNull();
      const named = names.filter((n) => instructions.includes(`${n} (`));
      expect(named.length + Number(more![1])).toBe(120);
    });

    test("a query pages in rank order: every match once, the default page of 10; tags narrow every page", async () => {
      const { client } = session!;
      const ranked = await all(client, { query: "widget gauges" });
      expect(ranked.pages.length).toBeGreaterThan(1);
      expect(ranked.pages.slice(0, -1).every((p) => p.skills.length === 10)).toBe(true);
      const names = ranked.pages.flatMap((p) => p.skills.map((s) => s.name));
      expect(new Set(names).size).toBe(names.length);
      const total = Number(/^\d+ of (\d+) skills/.exec(ranked.texts[0]!)![1]);
      expect(names).toHaveLength(total);
      // Pages of 10 and pages of 50 are the same ranking, cut in other places.
      const byFifty = await all(client, { query: "widget gauges", limit: 50 });
      expect(byFifty.pages.flatMap((p) => p.skills.map((s) => s.name))).toEqual(names);
      expect(names[0]).toBe("widget-000");
      const even = await all(client, { query: "widget gauges", tags: ["even"], limit: 25 });
      const evenNames = even.pages.flatMap((p) => p.skills.map((s) => s.name));
      expect(evenNames).toEqual(names.filter((n) => Number(n.slice(-3)) % 2 === 0));
    });

    test("a cursor from another search, or not one at all, is a tool error that says what to do", async () => {
      const { client } = session!;
      const first = (await client.callTool({
        name: "find_skills",
        arguments: { query: "widget", limit: 5 },
      })) as Structured<Paged>;
      const cursor = first.structuredContent!.nextCursor!;
      const message =
        "Invalid cursor for find_skills: pass back the nextCursor of an earlier find_skills result with the same query and tags, or leave it out to start over";
      for (const args of [
        { query: "gauges", cursor },
        { query: "widget", tags: ["odd"], cursor },
        { cursor: "not-a-cursor" },
      ]) {
        const bad = await client.callTool({ name: "find_skills", arguments: args });
        expect(bad).toEqual({ content: [{ type: "text", text: message }], isError: true });
      }
      // A cursor stays short whatever was asked: a query of the longest kind pages on.
      const long = { query: `widget ${"\u00e9\u0001".repeat(246)}`, tags: ["Even"], limit: 5 };
      const firstLong = (await client.callTool({ name: "find_skills", arguments: long })) as Structured<Paged>;
      expect(firstLong.structuredContent!.nextCursor!.length).toBeLessThan(200);
      const nextLong = (await client.callTool({
        name: "find_skills",
        arguments: { ...long, cursor: firstLong.structuredContent!.nextCursor },
      })) as Structured<Paged>;
      expect(nextLong.isError).toBeUndefined();
      expect(nextLong.structuredContent!.skills.map((s) => s.name)).not.toContain(
        firstLong.structuredContent!.skills[0]!.name,
      );
    });
  });
}
