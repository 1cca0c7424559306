import type { Client } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import pkg from "../../package.json" with { type: "json" };
import { makeFixture, type Fixture } from "../helpers/fixture.ts";
import {
  connect,
  initializeLine,
  rawSession,
  requestLine,
  type Connected,
  type ServerTarget,
  wireError,
} from "../helpers/server.ts";

/** Project skills that exercise composition across layers, plus one broken file. */
export const PROJECT_FILES: Record<string, string> = {
  ".skills/kmp-expert.yaml":
    "id: kmp-expert\ndescription: Kotlin Multiplatform expertise\ntype: prompt\ntags: [kmp]\nprompt: |\n  Share code across {{platforms}}.\n",
  ".skills/android-expert.yaml":
    "id: android-expert\ndescription: Android expertise\ntype: prompt\ntags: [android]\nprompt: Follow Android guidance.\n",
  ".skills/needs-topic.yaml":
    "id: needs-topic\ndescription: Needs a topic\ntype: prompt\narguments:\n  - { name: topic, required: true }\nprompt: 'Topic: {{topic}}'\n",
  ".skills/broken.yaml": "id: broken\ndescription: [oops\n",
  ".skills/explain-level.yaml":
    "id: explain-level\nname: Explain at a level\ndescription: Explains at a chosen level\ntype: prompt\narguments:\n  - { name: level, enum: [beginner, Intermediate, expert, exec] }\nprompt: 'Level: {{level}}'\n",
};

/** The protocol reference, example by example and error row by error row, over real stdio. */
export function protocolSuite(target: ServerTarget): void {
  describe(`MCP protocol (${target.name})`, () => {
    let fixture: Fixture;
    let session: Connected;
    let client: Client;

    beforeAll(async () => {
      fixture = makeFixture(PROJECT_FILES);
      session = await connect(target, fixture.cwd, fixture.home);
      client = session.client;
    });
    afterAll(async () => {
      await session?.close();
      fixture?.cleanup();
    });

    test("initialize returns name skill-central, the package version, prompts and tools capabilities", () => {
      expect(client.getServerVersion()).toEqual({ name: "skill-central", version: pkg.version });
      const caps = client.getServerCapabilities();
      expect(caps?.prompts).toBeDefined();
      expect(caps?.tools).toBeDefined();
    });

    test("initialize declares listChanged for prompts, tools and resources, resource subscriptions, completions, and short instructions", () => {
      const caps = client.getServerCapabilities();
      expect(caps?.prompts).toEqual({ listChanged: true });
      expect(caps?.tools).toEqual({ listChanged: true });
      expect(caps?.resources).toEqual({ listChanged: true, subscribe: true });
      expect(caps?.completions).toEqual({});
      const instructions = client.getInstructions() ?? "";
      expect(instructions).toContain('"skills:compose"');
      expect(instructions).toContain("skill-central://registry");
      expect(instructions).toContain("skill-central://skills/{id}");
    });

    test("prompts/list lists prompt skills with their declared arguments", async () => {
      const { prompts } = await client.listPrompts();
      const review = prompts.find((p) => p.name === "review-pr");
      expect(review).toEqual({
        name: "review-pr",
        title: "Pull Request Review",
        description: "Review pull requests against team conventions",
        arguments: [{ name: "context", description: "Additional context from the IDE", required: false }],
      });
      const names = prompts.map((p) => p.name);
      expect(names).toContain("kmp-expert");
      expect(names).not.toContain("commit-conventions");
      expect(names).not.toContain("broken");
    });

    test("skills:compose is listed with a title, a description naming known tags, and its required tags argument", async () => {
      const { prompts } = await client.listPrompts();
      const compose = prompts.find((p) => p.name === "skills:compose")!;
      expect(compose.title).toBe("Compose skills by tags");
      expect(compose.arguments).toEqual([
        { name: "tags", description: 'Comma-separated tags, e.g. "kmp,android"', required: true },
      ]);
      expect(compose.description).toContain("Known tags: ");
      expect(compose.description).toContain("kmp");
      // The list is sorted by name, skills:compose included (cursors resume after a name).
      const names = prompts.map((p) => p.name);
      expect(names).toEqual([...names].sort());
    });

    test("prompts/get renders the template with the given arguments", async () => {
      const result = await client.getPrompt({
        name: "review-pr",
        arguments: { context: "this PR adds a new REST endpoint" },
      });
      expect(result.description).toBe("Review pull requests against team conventions");
      expect(result.messages).toHaveLength(1);
      expect(result.messages[0]!.role).toBe("user");
      const content = result.messages[0]!.content;
      expect(content.type).toBe("text");
      expect(content.type === "text" && content.text).toContain("this PR adds a new REST endpoint");
      expect(content.type === "text" && content.text).not.toContain("{{");
    });

    test("skills:compose joins every overlapping prompt skill, lowest priority first", async () => {
      const result = await client.getPrompt({
        name: "skills:compose",
        arguments: { tags: "kmp, Android", platforms: "iOS and Android" },
      });
      const text = result.messages[0]!.content.type === "text" ? result.messages[0]!.content.text : "";
      const sections = text.split("\n\n---\n\n");
      const ids = sections.map((s) => /^## (.+)\n/.exec(s)?.[1]);
      // Built-in skills (priority 0) come before the project's (priority 100); ties by id.
      expect(ids.at(-2)).toBe("android-expert");
      expect(ids.at(-1)).toBe("kmp-expert");
      expect(ids.slice(0, -2).every((id) => id !== undefined)).toBe(true);
      expect(sections.at(-1)).toBe("## kmp-expert\nShare code across iOS and Android.");
      expect(result.description).toBe(`Composed prompt from tags: kmp, android (${sections.length} skills)`);
      expect(result.messages).toHaveLength(1);
    });

    test("tools/list lists tool skills with their inputSchema as authored", async () => {
      const { tools } = await client.listTools();
      const commit = tools.find((t) => t.name === "commit-conventions")!;
      expect(commit.description).toBe(
        "Format a Conventional Commits message from its parts; the summary is imperative, lower-case and has no final period",
      );
      expect(commit.inputSchema.type).toBe("object");
      expect(Object.keys(commit.inputSchema.properties ?? {})).toEqual(["type", "scope", "summary", "body"]);
      expect(commit.inputSchema.required).toEqual(["type", "summary"]);
      expect(tools.map((t) => t.name)).not.toContain("review-pr");
    });

    test("tools carry the skill's name as title and read-only, idempotent, closed-world annotations", async () => {
      const { tools } = await client.listTools();
      const commit = tools.find((t) => t.name === "commit-conventions")!;
      expect(commit.title).toBe("Conventional Commit Message");
      for (const tool of tools) {
        expect(tool.annotations).toEqual({
          readOnlyHint: true,
          destructiveHint: false,
          idempotentHint: true,
          openWorldHint: false,
        });
      }
    });

    test("resources/list has skill-central://registry, one skill-central://skills/<id> per served skill, then each published skill's SKILL.md", async () => {
      const { resources } = await client.listResources();
      expect(resources[0]).toEqual({
        uri: "skill-central://registry",
        name: "registry",
        title: "Skill registry",
        description: expect.stringContaining("provenance"),
        mimeType: "application/json",
      });
      expect(resources.find((r) => r.uri === "skill-central://skills/review-pr")).toEqual({
        uri: "skill-central://skills/review-pr",
        name: "review-pr",
        title: "Pull Request Review",
        description: "Review pull requests against team conventions",
        mimeType: "application/json",
      });
      expect(resources.find((r) => r.uri === "skill://review-pr/SKILL.md")).toEqual({
        uri: "skill://review-pr/SKILL.md",
        name: "review-pr",
        description: "Review pull requests against team conventions",
        mimeType: "text/markdown",
      });
      const uris = resources.map((r) => r.uri);
      expect(uris).toEqual([...uris].sort());
      expect(uris).toContain("skill-central://skills/commit-conventions");
      // A tool stays a tool: it has no SKILL.md.
      expect(uris).not.toContain("skill://commit-conventions/SKILL.md");
      expect(uris).not.toContain("skill-central://skills/broken");
      const { resourceTemplates } = await client.listResourceTemplates();
      expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual([
        "skill-central://skills/{id}",
        "skill://{name}/SKILL.md",
      ]);
    });

    test("skill-central://registry reads as JSON: every id with every candidate's layer, priority, source and status", async () => {
      const { contents } = await client.readResource({ uri: "skill-central://registry" });
      expect(contents[0]!.mimeType).toBe("application/json");
      const view = JSON.parse((contents[0] as { text: string }).text) as {
        id: string;
        served: boolean;
        chain: { layer: string; priority: number; source: string; status: string }[];
      }[];
      expect(view.find((v) => v.id === "kmp-expert")).toEqual({
        id: "kmp-expert",
        served: true,
        chain: [{ layer: "project", priority: 100, source: ".skills/kmp-expert.yaml", status: "effective" }],
      });
      expect(view.find((v) => v.id === "review-pr")?.chain[0]).toMatchObject({
        layer: "builtin",
        priority: 0,
        status: "effective",
      });
    });

    test("skill-central://skills/{id} reads as the normalised effective skill with its resolution chain", async () => {
      const { contents } = await client.readResource({ uri: "skill-central://skills/needs-topic" });
      const body = JSON.parse((contents[0] as { text: string }).text) as {
        id: string;
        served: boolean;
        skill: Record<string, unknown>;
        chain: unknown[];
      };
      expect(body.id).toBe("needs-topic");
      expect(body.served).toBe(true);
      expect(body.skill).toMatchObject({
        id: "needs-topic",
        type: "prompt",
        tags: [],
        arguments: [{ name: "topic", required: true }],
        layer: "project",
        source: ".skills/needs-topic.yaml",
      });
      expect(body.chain).toEqual([
        { layer: "project", priority: 100, source: ".skills/needs-topic.yaml", status: "effective" },
      ]);
    });

    test("completion/complete offers a prompt argument's enum values by prefix, and tags for skills:compose", async () => {
      const level = await client.complete({
        ref: { type: "ref/prompt", name: "explain-level" },
        argument: { name: "level", value: "ex" },
      });
      expect(level.completion.values).toEqual(["expert", "exec"]);
      const anyCase = await client.complete({
        ref: { type: "ref/prompt", name: "explain-level" },
        argument: { name: "level", value: "inter" },
      });
      expect(anyCase.completion.values).toEqual(["Intermediate"]);
      const tags = await client.complete({
        ref: { type: "ref/prompt", name: "skills:compose" },
        argument: { name: "tags", value: "kmp, and" },
      });
      expect(tags.completion.values).toEqual(["kmp, android"]);
      const ids = await client.complete({
        ref: { type: "ref/resource", uri: "skill-central://skills/{id}" },
        argument: { name: "id", value: "review" },
      });
      expect(ids.completion.values).toEqual(["review-pr"]);
    });

    test("resources/read of an unknown URI and a list with a made-up cursor are -32602", async () => {
      expect(await wireError(client.readResource({ uri: "skill-central://skills/nope" }))).toEqual({
        code: -32602,
        message: "Unknown resource: skill-central://skills/nope (no skill has that id)",
      });
      const other = await wireError(client.readResource({ uri: "file:///etc/passwd" }));
      expect(other.code).toBe(-32602);
      expect(other.message).toContain("Unknown resource: file:///etc/passwd");
      const cursor = await wireError(client.listPrompts({ cursor: "not-a-cursor" }));
      expect(cursor.code).toBe(-32602);
      expect(cursor.message).toContain("Invalid cursor for prompts/list");
    });

    test("tools/call renders the tool's result", async () => {
      const result = await client.callTool({
        name: "commit-conventions",
        arguments: { type: "feat", scope: "cli", summary: "add list and show subcommands" },
      });
      expect(result).toEqual({ content: [{ type: "text", text: "feat(cli): add list and show subcommands" }] });
    });

    test("tools/call with a missing required argument is an isError result", async () => {
      const result = await client.callTool({ name: "commit-conventions", arguments: { type: "feat", scope: "cli" } });
      expect(result).toEqual({
        content: [{ type: "text", text: 'Missing required argument: "summary"' }],
        isError: true,
      });
    });

    test("tools/call validates the full schema: enum and type problems, one line each", async () => {
      const result = await client.callTool({ name: "commit-conventions", arguments: { type: "feature", summary: 5 } });
      expect(result.isError).toBe(true);
      const text = (result.content as { text: string }[])[0]!.text;
      expect(text.split("\n")).toEqual(
        expect.arrayContaining([
          expect.stringContaining('Argument "type" must be one of: feat, fix'),
          'Argument "summary" must be a string',
        ]),
      );
    });

    test("error rows: unknown prompt, unknown tool, no tag match, missing tags, missing required argument", async () => {
      expect(await wireError(client.getPrompt({ name: "nope" }))).toEqual({
        code: -32602,
        message: "Unknown prompt skill: nope",
      });
      expect(await wireError(client.callTool({ name: "nope", arguments: {} }))).toEqual({
        code: -32602,
        message: "Unknown tool: nope",
      });
      expect(await wireError(client.getPrompt({ name: "skills:compose", arguments: { tags: "zzz,yyy" } }))).toEqual({
        code: -32602,
        message: "No skills found for tags: zzz, yyy",
      });
      const noTags = await wireError(client.getPrompt({ name: "skills:compose", arguments: {} }));
      expect(noTags.code).toBe(-32602);
      expect(noTags.message).toContain('needs a "tags" argument');
      expect(await wireError(client.getPrompt({ name: "needs-topic", arguments: {} }))).toEqual({
        code: -32602,
        message: 'Missing required argument: "topic"',
      });
    });

    test("a broken skill file is skipped with a warning on stderr naming file, line and column", () => {
      expect(session.stderr()).toMatch(/\.skills\/broken\.yaml:\d+:\d+: error: skipped: invalid YAML/);
    });

    test("wire messages are exact (no SDK prefix) and malformed params are -32602, not -32603", async () => {
      const lines = [
        initializeLine(0),
        requestLine(1, "prompts/get", { name: "nope" }),
        requestLine(2, "tools/call", { name: "nope", arguments: {} }),
        requestLine(3, "prompts/get", { name: "skills:compose", arguments: { tags: "zzz" } }),
        requestLine(4, "prompts/get", { name: "review-pr", arguments: { context: { nested: true } } }),
        requestLine(5, "tools/call", { arguments: {} }),
        requestLine(6, "prompts/get", {}),
      ];
      const raw = await rawSession(target, fixture.cwd, fixture.home, lines, 7);
      const byId = new Map(
        raw.stdout
          .map((l) => JSON.parse(l) as { id: number; error?: { code: number; message: string } })
          .map((m) => [m.id, m]),
      );
      expect(byId.get(1)?.error).toEqual({ code: -32602, message: "Unknown prompt skill: nope" });
      expect(byId.get(2)?.error).toEqual({ code: -32602, message: "Unknown tool: nope" });
      expect(byId.get(3)?.error).toEqual({ code: -32602, message: "No skills found for tags: zzz" });
      for (const id of [4, 5, 6]) {
        expect(byId.get(id)?.error?.code).toBe(-32602);
        expect(byId.get(id)?.error?.message).not.toContain("MCP error");
      }
      expect(byId.get(4)?.error?.message).toStartWith("Invalid params for prompts/get: arguments.context");
    });
  });
}
