import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { CandidateView, SkillView } from "../../src/registry/describe.ts";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";
import { connect, SOURCE_TARGET } from "../helpers/server.ts";
import { runCli, runCliJson } from "./cli-run.ts";

/** Two layers with an override, a conflict, a lonely tag, a broken file, and config trouble. */
const FILES: Record<string, string> = {
  "skill-central.yaml":
    "builtin: false\ncolour: red\nlayers:\n  - { name: empty, path: ./empty, priority: 5 }\n  - { name: team, path: ./team, priority: 50 }\n  - { name: project, path: ./.skills, priority: 100 }\n",
  "~/.skill-central/config.yaml": "layers:\n  - { name: personal, path: ~/gone, priority: 80 }\n",
  "empty/_draft.yaml": "not: a skill\n",
  "team/greet.yaml":
    "id: greet\ndescription: Team greeting\ntype: prompt\ntags: [hello]\narguments:\n  - { name: who, required: true }\nprompt: 'Hello, {{who}}!'\n",
  ".skills/greet.yaml":
    "id: greet\nname: Greeting\ndescription: Project greeting\ntype: prompt\ntags: [hello, team]\narguments:\n  - { name: who, description: Who to greet, required: true }\nprompt: 'Hi {{who}}!'\n",
  "team/wave.yaml":
    "id: wave\ndescription: Waves\ntype: prompt\ntags: [hello]\nprompt: 'Wave{{#if at}} at {{at}}{{/if}}'\n",
  "team/count.yaml":
    "id: count\ndescription: Counts things\ntype: tool\ntags: [numbers]\ninputSchema:\n  type: object\n  properties:\n    n: { type: integer, minimum: 1, description: How many }\n  required: [n]\nprompt: 'n={{n}}'\n",
  ".skills/dup-a.yaml": "id: dup\ndescription: A\ntype: prompt\nprompt: A\n",
  ".skills/dup-b.yaml": "id: dup\ndescription: B\ntype: prompt\nprompt: B\n",
  "team/lonely.yaml": "id: lonely\ndescription: Alone\ntype: prompt\ntags: [solo]\nprompt: alone\n",
  ".skills/broken.yaml": "id: broken\ndescription: [oops\n",
};

let fixture: Fixture;
beforeAll(() => {
  fixture = makeFixture(FILES);
});
afterAll(() => fixture.cleanup());

const cli = (...args: string[]) => runCli(args, fixture.cwd, fixture.home);
const cliJson = <T>(...args: string[]) => runCliJson<T>(args, fixture.cwd, fixture.home);

describe("list", () => {
  test("a table of the served skills, sorted by id; load problems go to stderr", async () => {
    const { code, stdout, stderr } = await cli("list");
    expect(code).toBe(0);
    const lines = stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^ID\s+TYPE\s+LAYER\s+PRIORITY\s+TAGS\s+DESCRIPTION$/);
    expect(lines.slice(1).map((l) => l.split(/\s+/).slice(0, 4))).toEqual([
      ["count", "tool", "team", "50"],
      ["greet", "prompt", "project", "100"],
      ["lonely", "prompt", "team", "50"],
      ["wave", "prompt", "team", "50"],
    ]);
    expect(lines[2]).toEndWith("hello,team  Project greeting");
    expect(stderr).toContain(".skills/broken.yaml:");
    expect(stdout).not.toContain("\x1b[");
  });

  test("--json is an array of skill views; --type, --tag and --layer narrow it", async () => {
    const tools = await cliJson<SkillView[]>("list", "--type", "tool");
    expect(tools.code).toBe(0);
    expect(tools.json).toEqual([
      {
        id: "count",
        description: "Counts things",
        type: "tool",
        tags: ["numbers"],
        // Undeclared: derived from the template's variables, as prompts/list would show them.
        arguments: [{ name: "n", required: false }],
        prompt: "n={{n}}",
        inputSchema: {
          type: "object",
          properties: { n: { type: "integer", minimum: 1, description: "How many" } },
          required: ["n"],
        },
        format: "yaml",
        layer: "team",
        priority: 50,
        source: "team/count.yaml",
      },
    ]);
    const [tagged, layered] = await Promise.all([
      cliJson<SkillView[]>("list", "--tag", "HELLO"),
      cliJson<SkillView[]>("list", "--tag", "hello", "--layer", "project"),
    ]);
    expect(tagged.json.map((s) => s.id)).toEqual(["greet", "wave"]);
    expect(layered.json.map((s) => s.id)).toEqual(["greet"]);
  });

  test("a wrong --type or an unknown --layer is a usage error with a suggestion", async () => {
    const [type, layer] = await Promise.all([cli("list", "--type", "tools"), cli("list", "--layer", "projcet")]);
    expect(type.code).toBe(2);
    expect(type.stderr.trim().split("\n")).toEqual([
      'skill-central list: error: --type must be "prompt" or "tool", not "tools" (did you mean "tool"?)',
    ]);
    expect(layer.code).toBe(2);
    expect(layer.stderr).toContain('no layer named "projcet" (did you mean "project"?)');
  });
});

describe("show", () => {
  test("the resolved skill, its arguments and every candidate with its status", async () => {
    const { code, stdout } = await cli("show", "greet");
    expect(code).toBe(0);
    expect(stdout).toStartWith("greet  prompt  Greeting\nProject greeting\n");
    expect(stdout).toMatch(/layer\s+project \(priority 100\)/);
    expect(stdout).toMatch(/file\s+\.skills\/greet\.yaml/);
    expect(stdout).toMatch(/who\s+required\s+Who to greet/);
    expect(stdout).toContain("Template\n  Hi {{who}}!\n");
    expect(stdout).toMatch(/project\s+100\s+\.skills\/greet\.yaml\s+effective\n/);
    expect(stdout).toMatch(/team\s+50\s+team\/greet\.yaml\s+shadowed by \.skills\/greet\.yaml\n/);
  });

  test("--json has the skill, the checked arguments (a tool's from its schema) and the chain", async () => {
    const { code, json } = await cliJson<{
      served: boolean;
      skill: SkillView;
      arguments: unknown[];
      chain: CandidateView[];
    }>("show", "count");
    expect(code).toBe(0);
    expect(json.served).toBe(true);
    expect(json.skill.source).toBe("team/count.yaml");
    expect(json.arguments).toEqual([{ name: "n", required: true, type: "integer", description: "How many" }]);
    expect(json.chain).toEqual([{ layer: "team", priority: 50, source: "team/count.yaml", status: "effective" }]);
  });

  test("an id withdrawn by a conflict shows both files and exits 1; an unknown id suggests one", async () => {
    const [dup, unknown] = await Promise.all([
      cliJson<{ served: boolean; chain: CandidateView[] }>("show", "dup"),
      cli("show", "gret"),
    ]);
    expect(dup.code).toBe(1);
    expect(dup.json.served).toBe(false);
    expect(dup.json.chain).toEqual([
      {
        layer: "project",
        priority: 100,
        source: ".skills/dup-a.yaml",
        status: "conflicted",
        conflictsWith: [".skills/dup-b.yaml"],
      },
      {
        layer: "project",
        priority: 100,
        source: ".skills/dup-b.yaml",
        status: "conflicted",
        conflictsWith: [".skills/dup-a.yaml"],
      },
    ]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('error: unknown skill "gret" (did you mean "greet"?)');
  });
});

describe("render", () => {
  test("prints exactly the text prompts/get and tools/call return", async () => {
    const session = await connect(SOURCE_TARGET, fixture.cwd, fixture.home);
    try {
      const [prompt, tool, composed, toolError] = await Promise.all([
        session.client.getPrompt({ name: "greet", arguments: { who: "Ada" } }),
        session.client.callTool({ name: "count", arguments: { n: 3 } }),
        session.client.getPrompt({ name: "skills:compose", arguments: { tags: "hello", at: "you" } }),
        session.client.callTool({ name: "count", arguments: { n: 0 } }),
      ]);
      // The CLI prints the text with one closing newline, as a terminal expects.
      const text = (r: object) => {
        const { messages, content } = r as { messages?: { content: { text: string } }[]; content?: { text: string }[] };
        return `${messages?.[0]?.content.text ?? content?.[0]?.text}\n`;
      };
      const [cliPrompt, cliTool, cliComposed, cliError] = await Promise.all([
        cli("render", "greet", "--arg", "who=Ada"),
        cli("render", "count", "--arg", "n=3"),
        cli("render", "skills:compose", "--arg", "tags=hello", "--args-json", '{"at":"you"}'),
        cli("render", "count", "--args-json", '{"n":0}'),
      ]);
      expect([cliPrompt.code, cliTool.code, cliComposed.code, cliError.code]).toEqual([0, 0, 0, 1]);
      expect(cliPrompt.stdout).toBe(text(prompt));
      expect(cliTool.stdout).toBe(text(tool));
      expect(cliComposed.stdout).toBe(text(composed));
      expect(toolError.isError).toBe(true);
      expect(cliError.stdout).toBe("");
      expect(cliError.stderr).toEndWith(`error: ${(toolError.content as { text: string }[])[0]!.text}\n`);
    } finally {
      await session.close();
    }
  });

  test("validation errors exit 1 with one line per problem; bad --args-json is a usage error", async () => {
    const [missing, badJson, notObject, unknown] = await Promise.all([
      cli("render", "greet"),
      cli("render", "count", "--args-json", "{n:1}"),
      cli("render", "count", "--args-json", "[1]"),
      cli("render", "dup"),
    ]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toEndWith('error: Missing required argument: "who"\n');
    expect(badJson.code).toBe(2);
    expect(badJson.stderr).toContain("--args-json is not valid JSON");
    expect(notObject.code).toBe(2);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("not served: its files conflict");
  });
});

interface DoctorJson {
  ok: boolean;
  configFiles: string[];
  layers: { name: string; state: string; files: number; served: number }[];
  shadowed: { id: string; effective: { source: string }; shadowed: { source: string }[] }[];
  duplicates: { id: string; sources: string[]; withdrawn: boolean }[];
  errors: number;
  warnings: number;
  problems: {
    severity: string;
    rule: string;
    file?: string;
    line?: number;
    column?: number;
    message: string;
    hint?: string;
  }[];
}

describe("doctor", () => {
  test("reports config files, layer states, shadowing, conflicts with both files, lonely tags; errors exit 1", async () => {
    const { code, stdout } = await cli("doctor");
    expect(code).toBe(1);
    expect(stdout).toContain(
      `Config files (user first; the project's settings win)\n  ${fixture.home}/.skill-central/config.yaml\n  skill-central.yaml\n`,
    );
    expect(stdout).toMatch(/personal\s+80\s+\S+\/gone\s+missing/);
    expect(stdout).toMatch(/empty\s+5\s+empty\s+0 files, 0 served/);
    expect(stdout).toContain("greet: .skills/greet.yaml (project, 100) shadows team/greet.yaml (team, 50)");
    expect(stdout).toContain('skill-central.yaml:2:1: warning: unknown key "colour" is ignored');
    expect(stdout).toContain(
      '.skills/dup-a.yaml: error: id "dup" is defined 2 times in layer "project" (.skills/dup-a.yaml and .skills/dup-b.yaml), so it is not served',
    );
    expect(stdout).toContain('team/lonely.yaml:4:7: note: prompt "lonely": no other prompt skill has its tag (solo)');
    expect(stdout).toContain('skill-central.yaml:4:26: warning: layer "empty": the folder empty has no skill files');
    expect(stdout).toMatch(/\.skills\/broken\.yaml:\d+:\d+: error: invalid YAML/);
    expect(stdout).toEndWith("2 errors, 7 warnings; 0 examples run, 0 failed\n");
  });

  test("--json has the same findings as data", async () => {
    const { json } = await cliJson<DoctorJson>("doctor");
    expect(json.ok).toBe(false);
    expect(json.configFiles).toEqual([`${fixture.home}/.skill-central/config.yaml`, "skill-central.yaml"]);
    expect(json.layers.map((l) => [l.name, l.state, l.files, l.served])).toEqual([
      ["personal", "missing", 0, 0],
      ["empty", "ok", 0, 0],
      ["team", "ok", 4, 3],
      ["project", "ok", 4, 1],
    ]);
    expect(json.shadowed).toEqual([
      {
        id: "greet",
        effective: { layer: "project", priority: 100, source: ".skills/greet.yaml" },
        shadowed: [{ layer: "team", priority: 50, source: "team/greet.yaml" }],
      },
    ] as never);
    expect(json.duplicates).toEqual([
      { id: "dup", layer: "project", sources: [".skills/dup-a.yaml", ".skills/dup-b.yaml"], withdrawn: true },
    ] as never);
    expect(json.problems.map((p) => p.rule).sort()).toEqual([
      "config",
      "duplicate-id",
      "layer-empty",
      "layer-missing",
      "tags-compose-with-nothing",
      // greet (.skills), count, lonely and wave: one or two words say nothing a model can choose by.
      "vague-description",
      "vague-description",
      "vague-description",
      "vague-description",
      "yaml-syntax",
    ]);
  });

  test("warnings alone exit 0", async () => {
    const clean = makeFixture({ ".skills/lonely.yaml": FILES["team/lonely.yaml"]! });
    try {
      const { code, stdout } = await runCli(["doctor", "--no-builtin"], clean.cwd, clean.home);
      expect(code).toBe(0);
      expect(stdout).toContain("  none (built-in skills, plus .skills/ when it exists)\n  built-in skills: off\n");
      expect(stdout).toEndWith("no errors, 1 warning; 0 examples run, 0 failed\n");
    } finally {
      clean.cleanup();
    }
  });
});
