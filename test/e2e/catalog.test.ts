import type { Client } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { CATALOG_TOOL_IDS, catalogFixtureFiles } from "../helpers/catalog-fixture.ts";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";
import { connectHttp, startHttpServer, type HttpServer } from "../helpers/http-server.ts";
import { connect, SOURCE_TARGET, wireError, type Connected } from "../helpers/server.ts";
import {
  CATALOG,
  catalogSuite,
  findSkillsPagingSuite,
  MODEL_TOOL_NAME,
  toolNames,
  usePromptSkillThroughTools,
  type Found,
} from "./catalog-suite.ts";
import { runCli } from "./cli-run.ts";
import { ListChanges } from "./live-session.ts";

catalogSuite(SOURCE_TARGET);
findSkillsPagingSuite(SOURCE_TARGET);

/** `n` tool skills, each with a required integer, so validation has something to say. */
function toolSkills(n: number, prefix = "tool"): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 1; i <= n; i++) {
    const id = `${prefix}-${String(i).padStart(3, "0")}`;
    files[`.skills/${id}.yaml`] =
      `id: ${id}\ndescription: Tool number ${i} of the team's kit\ntype: tool\ntags: [kit]\n` +
      "inputSchema:\n  type: object\n  properties:\n    count: { type: integer, minimum: 1 }\n  required: [count]\n  additionalProperties: false\n" +
      `prompt: '${id} x{{count}}'\n`;
  }
  return files;
}

type Result = { content: { type: string; text?: string }[]; isError?: boolean; structuredContent?: unknown };

describe("tool skills over a capped client's budget", () => {
  const sessions: Connected[] = [];
  const fixtures: Fixture[] = [];
  const open = async (files: Record<string, string>, name: string, args: string[] = []) => {
    const fixture = makeFixture({ "skill-central.yaml": "builtin: false\n", ...files });
    fixtures.push(fixture);
    const session = await connect(SOURCE_TARGET, fixture.cwd, fixture.home, args, "legacy", { name });
    sessions.push(session);
    return session.client;
  };
  afterAll(async () => {
    await Promise.all(sessions.map((s) => s.close()));
    for (const f of fixtures) f.cleanup();
  });

  test("60 tool skills under Cursor: at most 40 tools listed (the catalog's three), and all 60 callable through run_skill_tool", async () => {
    const client = await open(toolSkills(60), "cursor-vscode");
    const tools = await toolNames(client);
    expect(tools.length).toBeLessThanOrEqual(40);
    expect(tools).toEqual(["find_skills", "load_skill", "run_skill_tool"]);
    for (let i = 1; i <= 60; i++) {
      const name = `tool-${String(i).padStart(3, "0")}`;
      const result = (await client.callTool({
        name: "run_skill_tool",
        arguments: { name, arguments: { count: i } },
      })) as Result;
      expect(result).toEqual({
        content: [{ type: "text", text: `${name} x${i}` }],
        structuredContent: { name, text: `${name} x${i}` },
      });
    }
    const listed = (await client.callTool({
      name: "find_skills",
      arguments: { tags: ["kit"], limit: 50 },
    })) as Result & { structuredContent: Found };
    expect(listed.structuredContent.skills).toHaveLength(50);
    expect((listed.content[0]!.text ?? "").split("\n")[0]).toBe("50 of 60 skills for tags kit:");
    expect(listed.content[0]!.text).toContain(
      'Run a tool skill with run_skill_tool {"name": "<name>", "arguments": {…}}.',
    );
  });

  test("run_skill_tool validates exactly as tools/call does, and still calls a tool skill that is not listed", async () => {
    const client = await open(toolSkills(60), "cursor-vscode");
    for (const args of [{}, { count: 0 }, { count: "three" }, { count: 1, extra: true }]) {
      const direct = await client.callTool({ name: "tool-007", arguments: args });
      const through = await client.callTool({
        name: "run_skill_tool",
        arguments: { name: "tool-007", arguments: args },
      });
      expect(direct.isError).toBe(true);
      expect(through).toEqual(direct);
    }
    expect(await client.callTool({ name: "run_skill_tool", arguments: { name: "tool-07", arguments: {} } })).toEqual({
      content: [
        {
          type: "text",
          text: 'Unknown tool skill: "tool-07". Nearest names: tool-007, tool-017, tool-027. find_skills searches them all.',
        },
      ],
      isError: true,
    });
    expect(await client.callTool({ name: "run_skill_tool", arguments: {} })).toEqual({
      content: [{ type: "text", text: 'Missing required argument: "name"' }],
      isError: true,
    });
    const schema = (await client.callTool({ name: "load_skill", arguments: { name: "tool-007" } })) as Result;
    expect(schema.content[0]!.text).toContain('Run it with run_skill_tool {"name": "tool-007"');
  });

  test("run_skill_tool on a prompt skill says to load it", async () => {
    const client = await open(
      { ...toolSkills(41), ".skills/notes.yaml": "id: notes\ndescription: Notes\ntype: prompt\nprompt: Notes\n" },
      "cursor-vscode",
    );
    expect(await client.callTool({ name: "run_skill_tool", arguments: { name: "notes" } })).toEqual({
      content: [
        {
          type: "text",
          text: '"notes" is a prompt skill, not a tool skill: read it with load_skill {"name": "notes"}',
        },
      ],
      isError: true,
    });
  });

  test("a team with 200 tool skills stays under Cursor's cap, and VS Code's; Claude Code still gets all 200 as tools", async () => {
    const files = toolSkills(200);
    for (const name of ["cursor-vscode", "Visual Studio Code", "windsurf-client"]) {
      expect(await toolNames(await open(files, name))).toEqual(["find_skills", "load_skill", "run_skill_tool"]);
    }
    expect(await toolNames(await open(files, "claude-code"))).toHaveLength(200);
  });

  test("40 tool skills fit Cursor's cap as tools; toolCap in the config moves the line", async () => {
    expect(await toolNames(await open(toolSkills(40), "cursor-vscode"))).toHaveLength(40);
    expect(
      await toolNames(
        await open({ ...toolSkills(40), "skill-central.yaml": "builtin: false\ntoolCap: 30\n" }, "cursor-vscode"),
      ),
    ).toEqual(["find_skills", "load_skill", "run_skill_tool"]);
  });

  test("toolSkills: catalog puts tool skills behind run_skill_tool even for Claude Code", async () => {
    const client = await open(
      { ...toolSkills(2), "skill-central.yaml": "builtin: false\ntoolSkills: catalog\n" },
      "claude-code",
    );
    expect(await toolNames(client)).toEqual(["find_skills", "load_skill", "run_skill_tool"]);
    expect(
      await client.callTool({ name: "run_skill_tool", arguments: { name: "tool-002", arguments: { count: 2 } } }),
    ).toMatchObject({ content: [{ text: "tool-002 x2" }] });
  });

  test("a tool skill whose name would not fit the prefixed 64 characters is not listed by name, but runs through run_skill_tool", async () => {
    const long = "a-very-long-tool-skill-name-that-goes-on-and-on-x";
    const client = await open(
      { ...toolSkills(1), [`.skills/${long}.yaml`]: `id: ${long}\ndescription: Long\ntype: tool\nprompt: long\n` },
      "claude-code",
    );
    const names = await toolNames(client);
    expect(names).toEqual(["find_skills", "load_skill", "run_skill_tool", "tool-001"]);
    for (const name of names) expect(`mcp__skill-central__${name}`).toMatch(MODEL_TOOL_NAME);
    expect(await client.callTool({ name: "run_skill_tool", arguments: { name: long } })).toMatchObject({
      content: [{ text: "long" }],
    });
    expect(sessions.at(-1)!.stderr()).toContain(
      `warning: tool id "${long}" is 49 characters: as mcp__skill-central__${long} it is over the 64 that clients' models take`,
    );
  });
});

describe("list_changed for tools when the catalog or its mode changes on reload", () => {
  let fixture: Fixture;
  let session: Connected;
  let client: Client;
  let changes: ListChanges;

  beforeAll(async () => {
    fixture = makeFixture({ "skill-central.yaml": "builtin: false\n", ...toolSkills(40) });
    session = await connect(SOURCE_TARGET, fixture.cwd, fixture.home, [], "legacy", { name: "cursor-vscode" });
    client = session.client;
    changes = new ListChanges(client);
  });
  afterAll(async () => {
    await session?.close();
    fixture?.cleanup();
  });

  test("a 41st tool skill crosses Cursor's cap: tools/list_changed, and the tool skills move behind the catalog", async () => {
    expect(await toolNames(client)).toHaveLength(40);
    fixture.write(".skills/tool-041.yaml", toolSkills(41)[".skills/tool-041.yaml"]!);
    await changes.waitFor("tools", 1);
    expect(await toolNames(client)).toEqual(["find_skills", "load_skill", "run_skill_tool"]);
  });

  test("a new prompt skill changes prompts, not the catalog's tools", async () => {
    fixture.write(".skills/notes.yaml", "id: notes\ndescription: Notes\ntype: prompt\nprompt: Notes\n");
    await changes.waitFor("prompts", 1);
    expect(changes.counts.tools).toBe(1);
    const found = (await client.callTool({ name: "find_skills", arguments: { query: "notes" } })) as Result & {
      structuredContent: Found;
    };
    expect(found.structuredContent.skills.map((s) => s.name)).toEqual(["notes"]);
  });

  test("catalog: off in the config: tools/list_changed, and every tool skill is a tool again", async () => {
    fixture.write("skill-central.yaml", "builtin: false\ncatalog: off\n");
    await changes.waitFor("tools", 2);
    expect(await toolNames(client)).toHaveLength(41);
    expect(await wireError(client.callTool({ name: "run_skill_tool", arguments: {} }))).toEqual({
      code: -32602,
      message: "Unknown tool: run_skill_tool",
    });
  });
});

describe("the catalog over HTTP", () => {
  let fixture: Fixture;
  let server: HttpServer;
  const clients: Client[] = [];
  beforeAll(async () => {
    fixture = makeFixture(catalogFixtureFiles());
    server = await startHttpServer({ target: SOURCE_TARGET, cwd: fixture.cwd, home: fixture.home });
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await server?.stop();
    fixture?.cleanup();
  });

  test("a 2025-11-25 session from Windsurf and a 2026-07-28 request from Codex get the catalog; Claude Code's session does not", async () => {
    for (const [name, era] of [
      ["windsurf-client", "legacy"],
      ["codex-mcp-client", "modern"],
    ] as const) {
      const { client } = await connectHttp(server.url, era, {}, { name });
      clients.push(client);
      expect(await toolNames(client)).toEqual([...CATALOG, ...CATALOG_TOOL_IDS].sort());
      await usePromptSkillThroughTools(client);
    }
    const { client } = await connectHttp(server.url, "legacy", {}, { name: "claude-code" });
    clients.push(client);
    expect(await toolNames(client)).toEqual([...CATALOG_TOOL_IDS].sort());
  });
});

describe("the catalog over stateless HTTP", () => {
  let fixture: Fixture;
  let server: HttpServer;
  const clients: Client[] = [];
  beforeAll(async () => {
    fixture = makeFixture(catalogFixtureFiles());
    server = await startHttpServer({
      target: SOURCE_TARGET,
      cwd: fixture.cwd,
      home: fixture.home,
      args: ["--stateless"],
    });
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await server?.stop();
    fixture?.cleanup();
  });

  test("2026-07-28 requests name their client each time: Windsurf's get the catalog", async () => {
    const { client } = await connectHttp(server.url, "modern", {}, { name: "windsurf-client" });
    clients.push(client);
    expect(await toolNames(client)).toEqual([...CATALOG, ...CATALOG_TOOL_IDS].sort());
  });

  test("a 2025-11-25 client is forgotten after initialize, so it is served, and instructed, as an unknown client", async () => {
    const { client } = await connectHttp(server.url, "legacy", {}, { name: "windsurf-client" });
    clients.push(client);
    expect(client.getInstructions()).toContain("prompt skills are MCP prompts");
    expect(await toolNames(client)).toEqual([...CATALOG_TOOL_IDS].sort());
  });
});

describe("skill-central find", () => {
  let fixture: Fixture;
  beforeAll(() => {
    fixture = makeFixture(catalogFixtureFiles());
  });
  afterAll(() => fixture?.cleanup());
  const cli = (...args: string[]) => runCli(args, fixture.cwd, fixture.home);

  test("ranks with the same search as find_skills: words as separate arguments or one", async () => {
    const run = await cli("find", "blameless", "write-up", "after", "an", "outage");
    expect(run.code).toBe(0);
    expect(run.stdout.split("\n")[0]).toMatch(/^NAME\s+TYPE\s+LAYER\s+TAGS\s+DESCRIPTION$/);
    expect(run.stdout.split("\n")[1]).toStartWith("incident-postmortem  prompt  project  incident,oncall");
    const json = JSON.parse((await cli("find", "blameless write-up after an outage", "--json")).stdout) as {
      total: number;
      skills: { name: string; uri: string }[];
    };
    expect(json.skills[0]).toMatchObject({ name: "incident-postmortem", uri: "skill://incident-postmortem/SKILL.md" });
  });

  test("people see skills only people may run; --model shows what a model sees", async () => {
    const all = JSON.parse((await cli("find", "deploy", "--json")).stdout) as {
      skills: { name: string; modelInvocable?: boolean }[];
    };
    expect(all.skills[0]).toMatchObject({ name: "deploy", modelInvocable: false });
    const model = await cli("find", "deploy", "the", "service", "--model", "--json");
    expect((JSON.parse(model.stdout) as { skills: { name: string }[] }).skills.map((s) => s.name)).not.toContain(
      "deploy",
    );
  });

  test("--tag, --type and --limit narrow; nothing found exits 1; bad flags exit 2 with a one-line reason", async () => {
    const tools = JSON.parse((await cli("find", "--type", "tool", "--tag", "security", "--json")).stdout) as {
      skills: { name: string }[];
    };
    expect(tools.skills.map((s) => s.name)).toEqual(["secrets-scan"]);
    const limited = await cli("find", "review", "--limit", "2");
    expect(limited.stdout.trim().split("\n")).toHaveLength(3);
    expect(limited.stderr).toMatch(/^2 of \d+ matches shown \(--limit to see more\)$/m);
    const none = await cli("find", "quantum", "chromodynamics");
    expect([none.code, none.stderr]).toEqual([1, 'no skill matches "quantum chromodynamics"\n']);
    expect(await cli("find", "x", "--limit", "0")).toMatchObject({
      code: 2,
      stderr: 'skill-central find: error: --limit must be a positive whole number, not "0"\n',
    });
    expect(await cli("find", "x", "--type", "tools")).toMatchObject({
      code: 2,
      stderr: 'skill-central find: error: --type must be "prompt" or "tool", not "tools" (did you mean "tool"?)\n',
    });
  });

  test("mcp --catalog takes auto, on or off", async () => {
    expect(await cli("mcp", "--catalog", "yes")).toMatchObject({
      code: 2,
      stderr: 'skill-central mcp: error: --catalog must be auto, on or off, not "yes"\n',
    });
    expect(await cli("mcp", "--catalog", "offf")).toMatchObject({
      code: 2,
      stderr: 'skill-central mcp: error: --catalog must be auto, on or off, not "offf" (did you mean "off"?)\n',
    });
  });
});

describe("skill-central doctor", () => {
  test("shows the catalog settings in effect, the project's over the user's", async () => {
    const fixture = makeFixture({
      "~/.skill-central/config.yaml": "toolCap: 25\n",
      "skill-central.yaml": "catalog: on\n",
    });
    try {
      const text = await runCli(["doctor"], fixture.cwd, fixture.home);
      expect(text.stdout).toContain("  catalog: on; toolSkills: tools; toolCap: 25 (docs/catalog.md)\n");
      const json = JSON.parse((await runCli(["doctor", "--json"], fixture.cwd, fixture.home)).stdout) as {
        catalog: unknown;
      };
      expect(json.catalog).toEqual({ mode: "on", toolSkills: "tools", toolCap: 25 });
    } finally {
      fixture.cleanup();
    }
  });
});

describe("the public API's find", () => {
  test("answers as find_skills does: best match first, tags narrowing, never a skill only people may run", async () => {
    const { openSkills } = await import("../../src/api.ts");
    const fixture = makeFixture(catalogFixtureFiles());
    try {
      const skills = await openSkills({ cwd: fixture.cwd, home: fixture.home });
      expect(skills.find("blameless write-up after an outage")[0]).toMatchObject({
        id: "incident-postmortem",
        layer: "project",
        format: "skill-md",
      });
      expect(skills.find("review", { tags: ["Database"] }).map((s) => s.id)).toEqual(["sql-query-review"]);
      expect(skills.find("", { limit: 2 }).map((s) => s.id)).toEqual(["accessibility-audit", "api-design"]);
      expect(skills.find("deploy the service").map((s) => s.id)).not.toContain("deploy");
    } finally {
      fixture.cleanup();
    }
  });
});
