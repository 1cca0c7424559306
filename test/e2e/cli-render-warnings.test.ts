import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";
import { runCli, runCliJson } from "./cli-run.ts";

/**
 * `render` prints what the server would answer, and warns on stderr about arguments that change
 * nothing but look as if they should: a name the skill does not take, and a required argument
 * left empty where nothing enforces it (the skills skills:compose joins).
 */
const FILES: Record<string, string> = {
  ".skills/greet.yaml":
    "id: greet\ndescription: Greets\ntype: prompt\ntags: [hello]\narguments:\n  - { name: who, required: true }\n  - { name: mood }\nprompt: 'Hi {{who}}{{#if mood}}, {{mood}}{{/if}}!'\n",
  ".skills/wave.yaml":
    "id: wave\ndescription: Waves\ntype: prompt\ntags: [hello]\nprompt: 'Wave{{#if at}} at {{at}}{{/if}}'\n",
  ".skills/bare.yaml": "id: bare\ndescription: No arguments\ntype: prompt\nprompt: Just text\n",
  ".skills/count.yaml":
    "id: count\ndescription: Counts\ntype: tool\ninputSchema:\n  type: object\n  properties:\n    n: { type: integer }\n  required: [n]\nprompt: 'n={{n}}'\n",
  ".skills/strict.yaml":
    "id: strict\ndescription: Closed schema\ntype: tool\ninputSchema:\n  type: object\n  properties:\n    n: { type: integer }\n  additionalProperties: false\nprompt: 'n={{n}}'\n",
};

let fixture: Fixture;
beforeAll(() => {
  fixture = makeFixture(FILES);
});
afterAll(() => fixture.cleanup());

const cli = (...args: string[]) => runCli([...args, "--no-builtin"], fixture.cwd, fixture.home);

describe("render warns about --arg names the skill does not take", () => {
  test("a prompt: the closest declared name is suggested; the text is what the server returns", async () => {
    const { code, stdout, stderr } = await cli("render", "greet", "--arg", "who=Ada", "--arg", "mod=happy");
    expect(code).toBe(0);
    expect(stdout).toBe("Hi Ada!\n");
    expect(stderr).toBe(
      'warning: "greet" has no argument named "mod", so its value is not used — did you mean "mood"?\n',
    );
  });

  test("a prompt without declared arguments takes its template's variables; one without any says so", async () => {
    const [wave, bare] = await Promise.all([
      cli("render", "wave", "--arg", "where=home"),
      cli("render", "bare", "--arg", "x=1"),
    ]);
    expect(wave.stderr).toBe(
      'warning: "wave" has no argument named "where", so its value is not used — the arguments: at\n',
    );
    expect(bare.stderr).toBe(
      'warning: "bare" has no argument named "x", so its value is not used — it takes no arguments\n',
    );
    expect([wave.code, bare.code]).toEqual([0, 0]);
  });

  test("a tool: names its inputSchema does not have, from --arg and --args-json alike", async () => {
    const { code, stdout, stderr } = await cli("render", "count", "--args-json", '{"n": 2, "m": 1}');
    expect(code).toBe(0);
    expect(stdout).toBe("n=2\n");
    expect(stderr).toBe('warning: "count" has no argument named "m", so its value is not used — did you mean "n"?\n');
  });

  test("a tool whose schema forbids other names: the error, and a warning only when it can name the one meant", async () => {
    const [near, far] = await Promise.all([
      cli("render", "strict", "--arg", "n=1", "--arg", "m=2"),
      cli("render", "strict", "--arg", "n=1", "--arg", "zzz=2"),
    ]);
    expect([near.code, far.code]).toEqual([1, 1]);
    expect(near.stderr).toBe(
      'warning: "strict" has no argument named "m", so its value is not used — did you mean "n"?\nerror: Unexpected argument "m": the tool does not accept it\n',
    );
    expect(far.stderr).toBe('error: Unexpected argument "zzz": the tool does not accept it\n');
  });

  test("known names, and a clean render, print nothing on stderr", async () => {
    const { code, stderr } = await cli("render", "greet", "--arg", "who=Ada", "--arg", "mood=calm");
    expect(code).toBe(0);
    expect(stderr).toBe("");
  });

  test("--json carries the warnings as data", async () => {
    const { json } = await runCliJson<{ id: string; text: string; warnings: unknown[] }>(
      ["render", "greet", "--arg", "who=Ada", "--arg", "mod=x", "--no-builtin"],
      fixture.cwd,
      fixture.home,
    );
    expect(json).toEqual({
      id: "greet",
      text: "Hi Ada!",
      warnings: [
        {
          rule: "unknown-argument",
          message: '"greet" has no argument named "mod", so its value is not used',
          hint: 'did you mean "mood"?',
        },
      ],
    });
  });
});

describe("render warns about required arguments left empty", () => {
  test("skills:compose: each composed skill's required argument that is missing or empty, while the text is rendered as the server does", async () => {
    const [missing, empty, given] = await Promise.all([
      cli("render", "skills:compose", "--arg", "tags=hello"),
      cli("render", "skills:compose", "--arg", "tags=hello", "--arg", "who="),
      cli("render", "skills:compose", "--arg", "tags=hello", "--arg", "who=Ada"),
    ]);
    expect([missing.code, empty.code, given.code]).toEqual([0, 0, 0]);
    const warning =
      'warning: "greet" requires "who", which is empty, so its section renders without it — pass --arg who=…\n';
    expect(missing.stderr).toBe(warning);
    expect(empty.stderr).toBe(warning);
    expect(missing.stdout).toBe("## greet\nHi !\n\n---\n\n## wave\nWave\n");
    expect(given.stderr).toBe("");
  });

  test("skills:compose: a name no composed skill takes lists the names they do take", async () => {
    const { stderr } = await cli(
      "render",
      "skills:compose",
      "--arg",
      "tags=hello",
      "--arg",
      "who=Ada",
      "--arg",
      "wher=x",
    );
    expect(stderr).toBe(
      'warning: no composed skill (greet, wave) has an argument named "wher", so its value is not used — the arguments: tags, who, mood, at\n',
    );
  });

  test("a prompt's required argument given as an empty string renders (as on the wire) with a warning", async () => {
    const { code, stdout, stderr } = await cli("render", "greet", "--arg", "who=");
    expect(code).toBe(0);
    expect(stdout).toBe("Hi !\n");
    expect(stderr).toBe('warning: "greet" requires "who", and it is empty — pass --arg who=…\n');
  });
});
