import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { ExampleResult } from "../../src/examples/run.ts";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";
import { runCli, runCliJson } from "./cli-run.ts";

const FILES: Record<string, string> = {
  ".skills/ok.yaml":
    'id: ok\ndescription: Greet someone by name with a friendly hello\ntype: prompt\nprompt: "Hello {{who}}"\nexamples:\n  - arguments: { who: Ada }\n    expect: Hello Ada\n',
  ".skills/two-problems.yaml":
    "id: Two_Problems\ndescription: A prompt with two things wrong in it\ntype: prompt\nprompt: |\n  Fine line\n  {{uppercase name}}\n",
  ".skills/bad-schema.yaml":
    "id: bad-schema\ndescription: Declares an argument with a misspelled schema type\ntype: tool\ninputSchema:\n  type: object\n  properties:\n    a: { type: strnig }\n",
  ".skills/bad-yaml.yaml": "id: bad-yaml\ndescription: [oops\n",
  ".skills/fails.yaml": [
    "id: fails",
    "description: Echoes a number, but its examples are wrong",
    "type: tool",
    "inputSchema:",
    "  type: object",
    "  properties: { n: { type: integer } }",
    "  required: [n]",
    'prompt: "n={{n}}"',
    "examples:",
    "  - arguments: { n: 1 }",
    "    expect: n=1",
    "  - arguments: { n: 2 }",
    "    expect: |",
    "      n=3",
    "      and more",
    "  - arguments: { n: 1 }",
    "    error: must be",
    "",
  ].join("\n"),
  ".skills/unknown-field.yaml":
    "id: unknown-field\ndescription: Carries a colour field that skill files do not know\ntype: prompt\ncolour: red\nprompt: x\n",
};

let fixture: Fixture;
beforeAll(() => {
  fixture = makeFixture(FILES);
});
afterAll(() => fixture.cleanup());

const cli = (...args: string[]) => runCli(args, fixture.cwd, fixture.home);

describe("validate", () => {
  test("one compiler-style line per problem, every broken file and failed example, exit 1", async () => {
    const { code, stdout, stderr } = await cli("validate", "--no-builtin");
    expect(code).toBe(1);
    const lines = stdout.trimEnd().split("\n");
    for (const line of lines) expect(line).toMatch(/^\.skills\/[a-z-]+\.yaml:\d+:\d+: (error|warning): /);
    expect(lines.map((l) => l.replace(/: (error|warning): .*/, ": $1"))).toEqual([
      ".skills/bad-schema.yaml:7:16: error",
      ".skills/bad-yaml.yaml:2:14: error", // the [ left open
      ".skills/fails.yaml:12:5: error",
      ".skills/fails.yaml:16:5: error",
      // The server logs one line for this file; validate gives each problem its own line and place.
      ".skills/two-problems.yaml:1:5: error",
      ".skills/two-problems.yaml:6:3: error",
      ".skills/unknown-field.yaml:4:1: warning",
    ]);
    expect(lines[2]).toBe(
      '.skills/fails.yaml:12:5: error: example 2 of "fails": output differs from "expect" — run `skill-central test fails` for the details',
    );
    expect(lines[5]).toContain('unknown helper "uppercase"');
    expect(stderr).toBe("6 errors, 1 warning in 6 files; 4 examples run, 2 failed\n");
  });

  test("named files are checked on their own; warnings alone exit 0; a missing path is an error", async () => {
    const [good, warned, missing] = await Promise.all([
      cli("validate", ".skills/ok.yaml"),
      cli("validate", ".skills/ok.yaml", ".skills/unknown-field.yaml"),
      cli("validate", "nope.yaml"),
    ]);
    expect(good.code).toBe(0);
    expect(good.stdout).toBe("");
    expect(good.stderr).toBe("no errors, 0 warnings in 1 file; 1 example run, 0 failed\n");
    expect(warned.code).toBe(0);
    expect(warned.stdout).toBe(
      '.skills/unknown-field.yaml:4:1: warning: unknown field "colour" is ignored — known fields: id, name, description, type, tags, arguments, prompt, inputSchema, version, examples, deprecated, enabled\n',
    );
    expect(missing.code).toBe(1);
    expect(missing.stdout).toBe(
      "nope.yaml: error: no such file or folder — check the path: a relative one is read from the project folder (--cwd)\n",
    );
  });

  test("a required argument no form can ask for (an array) is a warning naming it", async () => {
    fixture.write(
      "elsewhere/batch.yaml",
      "id: batch\ndescription: Process a batch of items under one name\ntype: tool\ninputSchema:\n  type: object\n  properties:\n    items: { type: array }\n    name: { type: string }\n  required: [items, name]\n",
    );
    const result = await cli("validate", "elsewhere/batch.yaml");
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      'elsewhere/batch.yaml:7:12: warning: required argument "items" of "batch" cannot be asked for in a form (it is not a string, number, integer, boolean or choice): a client that leaves it out gets an error — make it optional, or a field a form can hold\n',
    );
  });

  test("--json reports the counts and every problem as data", async () => {
    const { code, json } = await runCliJson<{
      ok: boolean;
      files: number;
      errors: number;
      warnings: number;
      examples: { passed: number; failed: number };
      problems: Record<string, unknown>[];
    }>(["validate", ".skills/fails.yaml", ".skills/two-problems.yaml"], fixture.cwd, fixture.home);
    expect(code).toBe(1);
    expect(json).toMatchObject({ ok: false, files: 2, errors: 4, warnings: 0, examples: { passed: 1, failed: 2 } });
    expect(json.problems[0]).toEqual({
      file: ".skills/fails.yaml",
      line: 12,
      column: 5,
      severity: "error",
      rule: "example-failed",
      message: 'example 2 of "fails": output differs from "expect"',
      hint: "run `skill-central test fails` for the details",
    });
  });
});

describe("test", () => {
  test("pass and fail per example, a diff for a wrong expect, exit 1 on any failure", async () => {
    const { code, stdout, stderr } = await cli("test", "--no-builtin");
    expect(code).toBe(1);
    // The broken files are reported as the server logs them, and count against a whole run.
    expect(stderr).toEndWith(
      "4 errors while loading (above, one line per file; `skill-central validate` lists each with its position)\n",
    );
    expect(stdout).toBe(
      [
        "pass  fails example 1",
        "FAIL  fails example 2  .skills/fails.yaml:12:5",
        '      output differs from "expect"',
        '      arguments: {"n":2}',
        "      --- expect  +++ actual",
        "      - n=3",
        "      - and more",
        "      + n=2",
        "FAIL  fails example 3  .skills/fails.yaml:16:5",
        '      expected the call to fail with "must be", but it succeeded',
        '      arguments: {"n":1}',
        "      actual:",
        "        n=1",
        "pass  ok example 1",
        "",
        "4 examples: 2 passed, 2 failed",
        "",
      ].join("\n"),
    );
  });

  test("ids pick skills; all passing exits 0; an unknown id exits 1 with a suggestion", async () => {
    const [ok, unknown] = await Promise.all([cli("test", "ok"), cli("test", "fials")]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toBe("pass  ok example 1\n\n1 example: 1 passed, 0 failed\n");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('error: unknown skill "fials" (did you mean "fails"?)');
  });

  test("--json has the counts and one result per example", async () => {
    const { code, json } = await runCliJson<{
      passed: number;
      failed: number;
      errors: number;
      results: Omit<ExampleResult, "path">[];
    }>(["test", "fails"], fixture.cwd, fixture.home);
    expect(code).toBe(1);
    expect(json.passed).toBe(1);
    expect(json.failed).toBe(2);
    expect(json.errors).toBe(4);
    // Paths as people read them (no absolute path, which inside the binary is a virtual one).
    expect(json.results[0]).toEqual({
      id: "fails",
      number: 1,
      source: ".skills/fails.yaml",
      arguments: { n: 1 },
      pass: true,
    });
    expect(json.results[1]).toMatchObject({
      number: 2,
      pass: false,
      failure: "text-differs",
      expected: "n=3\nand more",
      actual: "n=2",
      position: { line: 12, column: 5 },
    });
  });
});

describe("validate --strict: each problem once", () => {
  let strictFixture: Fixture;
  beforeAll(() => {
    // Every problem here is one the served rules report and the specification restates under --strict.
    strictFixture = makeFixture({
      "skill-central.yaml": "builtin: false\n",
      ".skills/long/SKILL.md": `---\nname: other\ndescription: Reviews a pull request for bugs, style and missing tests before it is merged; ${"d".repeat(1030)}\nfoo: 1\nmetadata: [a]\n---\n${"l\n".repeat(501)}`,
    });
  });
  afterAll(() => strictFixture.cleanup());

  test("an over-long description, an unknown field, the folder's name, metadata and the body: one line each, as an error", async () => {
    const { code, stdout, stderr } = await runCli(["validate", "--strict"], strictFixture.cwd, strictFixture.home);
    expect(code).toBe(1);
    const lines = stdout.trimEnd().split("\n");
    // One line per place and problem: no finding says again what another already said.
    const places = lines.map((l) => l.replace(/: (error|warning): .*/, ": $1"));
    expect(places).toEqual([
      ".skills/long/SKILL.md:2:7: error", // name "other", folder "long"
      ".skills/long/SKILL.md:3:14: error", // the description's length
      ".skills/long/SKILL.md:4:1: error", // foo
      ".skills/long/SKILL.md:5:11: error", // metadata
      ".skills/long/SKILL.md:7:1: error", // the body's length, where the body starts
    ]);
    expect(lines.filter((l) => l.includes("description") && l.includes("1024"))).toHaveLength(1);
    expect(lines.filter((l) => l.includes("501 lines"))).toHaveLength(1);
    expect(stderr).toStartWith("5 errors, 0 warnings in 1 file;");
  });

  test("--json counts each problem once too", async () => {
    const { json } = await runCliJson<{ errors: number; warnings: number; problems: { rule: string }[] }>(
      ["validate", "--strict"],
      strictFixture.cwd,
      strictFixture.home,
    );
    expect(json.problems.map((p) => p.rule)).toEqual([
      "spec-name-folder",
      "spec-description-length",
      "spec-field",
      "spec-metadata",
      "spec-body-length",
    ]);
    expect([json.errors, json.warnings]).toEqual([5, 0]);
  });
});
