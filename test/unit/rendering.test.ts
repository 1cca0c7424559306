import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SkillCentralError } from "../../src/errors.ts";
import { loadSkills } from "../../src/load/load-skills.ts";
import type { Registry } from "../../src/registry/registry.ts";
import { callTool } from "../../src/invoke/call-tool.ts";
import { compose } from "../../src/invoke/compose.ts";
import { parseTagList as parseTags } from "../../src/skill/tags.ts";
import { renderPrompt } from "../../src/invoke/render-prompt.ts";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";

let fixture: Fixture;
let registry: Registry;

beforeAll(async () => {
  fixture = makeFixture({
    "skill-central.yaml":
      "builtin: false\nlayers:\n  - { name: team, path: ./team, priority: 20 }\n  - { name: mine, path: ./mine, priority: 40 }\n",
    "team/greet.yaml":
      "id: greet\ndescription: Greets\ntype: prompt\narguments:\n  - { name: who, required: true }\n  - { name: mood }\nprompt: |\n  Hello {{who}}!{{#if mood}} You seem {{mood}}.{{/if}} <b>&amp;</b>\n",
    "team/vars.yaml": "id: vars\ndescription: V\ntype: prompt\ntags: solo\nprompt: 'a={{a}} b={{b.c}} log={{log}}'\n",
    "team/kmp.yaml":
      "id: kmp-expert\ndescription: K\ntype: prompt\ntags: [kmp]\nprompt: |\n\n  KMP body for {{project}}\n\n",
    "mine/android.yaml":
      "id: android-expert\ndescription: A\ntype: prompt\ntags: [Android, kmp]\nprompt: Android body\n",
    "team/arch.yaml": "id: arch\ndescription: Arch\ntype: prompt\ntags: [android]\nprompt: Arch body\n",
    "team/json-tool.yaml":
      "id: json-tool\ndescription: J\ntype: tool\ninputSchema:\n  type: object\n  properties:\n    n: { type: integer }\n  required: [n]\n",
    "team/typed.yaml": [
      "id: typed",
      "description: T",
      "type: tool",
      "inputSchema:",
      "  type: object",
      "  additionalProperties: false",
      "  properties:",
      "    count: { type: integer, minimum: 1 }",
      "    level: { enum: [low, high] }",
      "    code: { type: string, pattern: '^[A-Z]{3}$' }",
      "    owner: { $ref: '#/$defs/person' }",
      "    items: { type: array, items: { type: string } }",
      "  required: [count]",
      "  $defs:",
      "    person: { type: object, properties: { name: { type: string } }, required: [name] }",
      "prompt: 'count={{count}} items={{#each items}}[{{this}}]{{/each}}'",
      "",
    ].join("\n"),
  });
  ({ registry } = await loadSkills({ cwd: fixture.cwd, home: fixture.home }));
});
afterAll(() => fixture.cleanup());

function thrown(fn: () => unknown): SkillCentralError {
  try {
    fn();
  } catch (error) {
    if (error instanceof SkillCentralError) return error;
    throw error;
  }
  throw new Error("expected a SkillCentralError");
}

describe("prompt rendering", () => {
  test("fills placeholders, renders blocks, never HTML-escapes", () => {
    expect(renderPrompt(registry, "greet", { who: "Ada", mood: "curious" }).text).toBe(
      "Hello Ada! You seem curious. <b>&amp;</b>",
    );
  });

  test("a missing optional value renders empty, never as a raw {{placeholder}}", () => {
    const text = renderPrompt(registry, "vars", {}).text;
    expect(text).toBe("a= b= log=");
    expect(text).not.toContain("{{");
  });

  test("argument values are data: a template inside a value is not run", () => {
    const text = renderPrompt(registry, "greet", { who: "{{constructor.constructor}} {{mood}}" }).text;
    expect(text).toBe("Hello {{constructor.constructor}} {{mood}}! <b>&amp;</b>");
  });

  test("prototype properties render empty", () => {
    expect(renderPrompt(registry, "vars", { a: "x" }).text).toBe("a=x b= log=");
    const proto = renderPrompt(registry, "greet", { who: "__proto__" }).text;
    expect(proto).toBe("Hello __proto__! <b>&amp;</b>");
  });

  test("a missing required argument is an error naming it exactly", () => {
    const error = thrown(() => renderPrompt(registry, "greet", { mood: "x" }));
    expect(error.code).toBe("missing-argument");
    expect(error.message).toBe('Missing required argument: "who"');
  });

  test("an unknown prompt, or a tool asked for as a prompt, is unknown", () => {
    expect(thrown(() => renderPrompt(registry, "nope")).message).toBe("Unknown prompt skill: nope");
    expect(thrown(() => renderPrompt(registry, "typed")).message).toBe("Unknown prompt skill: typed");
  });
});

describe("compose", () => {
  test("tags are split on commas, trimmed, lowercased, de-duplicated", () => {
    expect(parseTags(" KMP, android ,,kmp ")).toEqual(["kmp", "android"]);
  });

  test("joins overlapping prompt skills by ascending priority, then id, with the documented separator", () => {
    const result = compose(registry, ["kmp", "android"], { project: "demo" });
    expect(result.skills).toEqual(["arch", "kmp-expert", "android-expert"]);
    expect(result.text).toBe(
      "## arch\nArch body\n\n---\n\n## kmp-expert\nKMP body for demo\n\n---\n\n## android-expert\nAndroid body",
    );
    expect(result.description).toBe("Composed prompt from tags: kmp, android (3 skills)");
  });

  test("one match says 1 skill; tags that match nothing are still named", () => {
    expect(compose(registry, ["solo"]).description).toBe("Composed prompt from tags: solo (1 skill)");
    expect(
      compose(
        registry,
        ["zzz", "SOLO"].map((t) => t.toLowerCase()),
      ).description,
    ).toBe("Composed prompt from tags: zzz, solo (1 skill)");
  });

  test("other arguments reach every composed template; a composed skill's required arguments are not enforced", () => {
    expect(compose(registry, ["solo", "kmp"], { a: "1", project: "p" }).text).toBe(
      "## kmp-expert\nKMP body for p\n\n---\n\n## vars\na=1 b= log=\n\n---\n\n## android-expert\nAndroid body",
    );
  });

  test("no match and no tags are distinct errors", () => {
    expect(thrown(() => compose(registry, ["nothing", "else"])).message).toBe(
      "No skills found for tags: nothing, else",
    );
    const noTags = thrown(() => compose(registry, []));
    expect(noTags.code).toBe("tags-required");
    expect(noTags.message).toContain('"tags"');
  });
});

describe("tool calls", () => {
  test("valid arguments render the template", async () => {
    expect(await callTool(registry, "typed", { count: 2, items: ["a", "b"] })).toEqual({
      ok: true,
      text: "count=2 items=[a][b]",
    });
  });

  test("a tool without a template returns its arguments as pretty JSON", async () => {
    expect(await callTool(registry, "json-tool", { n: 3 })).toEqual({ ok: true, text: '{\n  "n": 3\n}' });
  });

  test("every problem gets its own line, naming the argument and the rule", async () => {
    const outcome = await callTool(registry, "typed", {
      count: 0.5,
      level: "mid",
      code: "abc",
      owner: {},
      extra: true,
    });
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.problems).toEqual(
      expect.arrayContaining([
        'Argument "count" must be an integer',
        'Argument "level" must be one of: low, high',
        'Argument "code" must match the pattern ^[A-Z]{3}$',
        'Missing required argument: "owner.name"',
        'Unexpected argument "extra": the tool does not accept it',
      ]),
    );
  });

  test("a missing required property reads exactly as the protocol says", async () => {
    expect(await callTool(registry, "typed", {})).toEqual({
      ok: false,
      problems: ['Missing required argument: "count"'],
    });
  });

  test("an unknown tool, or a prompt asked for as a tool, is unknown", async () => {
    expect(thrown(() => callTool(registry, "greet", {})).message).toBe("Unknown tool: greet");
    expect(thrown(() => callTool(registry, "ghost", {})).code).toBe("unknown-tool");
  });
});

describe("built-in skills", () => {
  let builtin: Registry;
  beforeAll(async () => {
    ({ registry: builtin } = await loadSkills({ cwd: fixture.root, home: fixture.home }));
  });

  test("at least six, all loading cleanly", async () => {
    const result = await loadSkills({ cwd: fixture.root, home: fixture.home });
    expect(result.diagnostics).toEqual([]);
    expect(result.registry.resolutions().length).toBeGreaterThanOrEqual(6);
  });

  test("commit-conventions formats a Conventional Commits message exactly", async () => {
    const call = (args: Record<string, string>) => callTool(builtin, "commit-conventions", args);
    expect(await call({ type: "feat", scope: "cli", summary: "add list and show subcommands" })).toEqual({
      ok: true,
      text: "feat(cli): add list and show subcommands",
    });
    expect(await call({ type: "feat", summary: "add list and show subcommands" })).toEqual({
      ok: true,
      text: "feat: add list and show subcommands",
    });
    expect(await call({ type: "fix", summary: "x", body: "Longer.\n\nCloses #1" })).toEqual({
      ok: true,
      text: "fix: x\n\nLonger.\n\nCloses #1",
    });
    expect(await call({ type: "feat" })).toEqual({ ok: false, problems: ['Missing required argument: "summary"'] });
  });

  test("review-pr takes an optional context", () => {
    const skill = builtin.get("review-pr")!.skill;
    expect(skill.description).toBe("Review pull requests against team conventions");
    expect(skill.arguments).toEqual([
      { name: "context", description: "Additional context from the IDE", required: false },
    ]);
    expect(renderPrompt(builtin, "review-pr", { context: "adds a REST endpoint" }).text).toContain(
      "adds a REST endpoint",
    );
  });

  test("built-in prompts compose by tag", () => {
    expect(compose(builtin, ["code-quality"]).skills.length).toBeGreaterThanOrEqual(2);
  });
});
