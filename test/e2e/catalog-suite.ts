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
