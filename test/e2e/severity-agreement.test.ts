import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";
import { connect, SOURCE_TARGET } from "../helpers/server.ts";
import { runCli, runCliJson } from "./cli-run.ts";
import type { FindingJson as Finding } from "../../src/commands/support/findings.ts";

/**
 * One severity model: `validate`, `doctor`, `test` and the server judge the same project the same
 * way. An error (a file that is not served, a withdrawn id, a failing example) fails all three
 * commands and is "skipped" in the server's log; a warning fails none (only `validate --strict`).
 */
const BROKEN: Record<string, string> = {
  "skill-central.yaml":
    "builtin: false\nlayrs: []\nlayers:\n  - { name: team, path: ./team, priority: 50 }\n  - { name: project, path: ./.skills, priority: 100 }\n  - { name: gone, path: ./gone, priority: 10 }\n  - { name: empty, path: ./empty, priority: 5 }\n",
  "empty/_draft.yaml": "not: a skill\n",
  // An error: bad YAML.
  ".skills/bad-yaml.yaml": "id: bad-yaml\ndescription: [oops\n",
  // An error and a warning in one file: the server logs one line, validate two.
  ".skills/bad-type.yaml":
    "id: bad-type\ndescripton: d\ndescription: A prompt whose type is misspelled\ntype: promt\nprompt: x\n",
  // Warnings only: served.
  ".skills/typo.yaml":
    "id: typo\ndescription: Greets someone, with a typo in an argument\ntype: prompt\ntags: [solo]\narguments:\n  - { name: who, requried: true }\nprompt: 'Hi {{who}} {{whom}}'\n",
  // A conflict in the winning layer: the id is withdrawn (an error).
  ".skills/dup-a.yaml": "id: dup\ndescription: A\ntype: prompt\nprompt: A\n",
  ".skills/dup-b.yaml": "id: dup\ndescription: B\ntype: prompt\nprompt: B\n",
  // A failing example: served, but not as its author says.
  "team/fails.yaml":
    "id: fails\ndescription: Prints a word other than its example expects\ntype: prompt\nprompt: actual\nexamples:\n  - arguments: {}\n    expect: expected\n",
  "team/fine.yaml":
    "id: fine\ndescription: Prints one word exactly as its example says\ntype: prompt\nprompt: fine\nexamples:\n  - arguments: {}\n    expect: fine\n",
};

interface ValidateJson {
  ok: boolean;
  errors: number;
  warnings: number;
  problems: Finding[];
}

let fixture: Fixture;
beforeAll(() => {
  fixture = makeFixture(BROKEN);
});
afterAll(() => fixture.cleanup());

const files = (findings: readonly Finding[], severity: string) =>
  [...new Set(findings.filter((f) => f.severity === severity && f.file).map((f) => f.file!))].sort();

describe("a broken project", () => {
  let validate: ValidateJson;
  let doctor: ValidateJson;
  let codes: { validate: number; doctor: number; test: number; strict: number };
  let testStderr: string;
  let serverLog: string[];

  beforeAll(async () => {
    const [v, d, t, s] = await Promise.all([
      runCliJson<ValidateJson>(["validate"], fixture.cwd, fixture.home),
      runCliJson<ValidateJson>(["doctor"], fixture.cwd, fixture.home),
      runCli(["test"], fixture.cwd, fixture.home),
      runCli(["validate", "--strict"], fixture.cwd, fixture.home),
    ]);
    validate = v.json;
    doctor = d.json;
    codes = { validate: v.code, doctor: d.code, test: t.code, strict: s.code };
    testStderr = t.stderr;
    const server = await connect(SOURCE_TARGET, fixture.cwd, fixture.home);
    try {
      await server.client.listPrompts(); // answered once the first load is in, after its log lines
      serverLog = server
        .stderr()
        .trimEnd()
        .split("\n")
        .map((l) => l.replace(/^\[skill-central\] /, ""));
    } finally {
      await server.close();
    }
  });

  test("validate, doctor and test all exit 1", () => {
    expect(codes).toEqual({ validate: 1, doctor: 1, test: 1, strict: 1 });
    expect(validate.ok).toBe(false);
    expect(doctor.ok).toBe(false);
  });

  test("doctor's findings are validate's, in the same order with the same severity, rule, place and text, the whole-project ones included", () => {
    expect(doctor.problems).toEqual(validate.problems);
    expect(
      validate.problems.filter((f) => f.rule === "layer-empty" || f.rule === "tags-compose-with-nothing").length,
    ).toBe(2);
    expect(doctor.errors).toBe(validate.errors);
  });

  test("validate's verdict names every kind of error: bad YAML, a bad field, a withdrawn id, a failing example", () => {
    expect(validate.problems.filter((f) => f.severity === "error").map((f) => [f.file, f.rule])).toEqual([
      [".skills/bad-type.yaml", "invalid-type"],
      [".skills/bad-yaml.yaml", "yaml-syntax"],
      [".skills/dup-a.yaml", "duplicate-id"],
      ["team/fails.yaml", "example-failed"],
    ]);
    expect(files(validate.problems, "warning")).toEqual([
      ".skills/bad-type.yaml",
      ".skills/typo.yaml",
      "skill-central.yaml",
    ]);
    // In the file with a bad type, the misspelt "descripton" is a warning too (the right key is also there).
    expect(validate.problems.filter((f) => f.file === ".skills/bad-type.yaml").map((f) => f.rule)).toEqual([
      "unknown-field",
      "invalid-type",
    ]);
  });

  test("the server skips exactly the files validate calls broken, logs the same first finding, and warns about the rest", () => {
    const loadErrors = validate.problems.filter(
      (f) => f.severity === "error" && f.rule !== "example-failed" && f.rule !== "duplicate-id",
    );
    for (const f of loadErrors) {
      expect(serverLog).toContainEqual(
        expect.stringContaining(`${f.file}:${f.line}:${f.column}: error: skipped: ${f.message}`),
      );
    }
    // A file with warnings only is served, and the server says why it may not be what was meant.
    expect(serverLog).toContainEqual(expect.stringMatching(/^\.skills\/typo\.yaml:\d+:\d+: warning: /));
    // Findings about no single file's content (config, layers, resolution) are the same lines.
    for (const f of validate.problems.filter(
      (p) => p.rule === "config" || p.rule === "layer-missing" || p.rule === "duplicate-id",
    )) {
      const place = f.line === undefined ? "" : `:${f.line}:${f.column}`;
      expect(serverLog).toContain(`${f.file}${place}: ${f.severity}: ${f.message}${f.hint ? ` — ${f.hint}` : ""}`);
    }
    const skipped = serverLog
      .filter((l) => l.includes(": error: skipped: "))
      .map((l) => l.slice(0, l.indexOf(":")))
      .sort();
    expect(skipped).toEqual([".skills/bad-type.yaml", ".skills/bad-yaml.yaml"]);
  });

  test("test prints the load's findings exactly as the server logs them", () => {
    const loadLines = testStderr.trimEnd().split("\n").slice(0, -1);
    expect(loadLines.length).toBeGreaterThan(3);
    expect(loadLines).toEqual(serverLog.filter((l) => /: (error|warning|note): /.test(l)));
    expect(testStderr).toEndWith(
      "while loading (above, one line per file; `skill-central validate` lists each with its position)\n",
    );
  });
});

describe("the same project with its errors fixed", () => {
  let fixed: Fixture;
  beforeAll(() => {
    const files = { ...BROKEN };
    for (const name of [".skills/bad-yaml.yaml", ".skills/bad-type.yaml", ".skills/dup-b.yaml", "team/fails.yaml"])
      delete files[name];
    fixed = makeFixture(files);
  });
  afterAll(() => fixed.cleanup());

  test("warnings alone: validate, doctor and test exit 0; validate --strict exits 1", async () => {
    const [validate, doctor, tested, strict] = await Promise.all([
      runCli(["validate"], fixed.cwd, fixed.home),
      runCli(["doctor"], fixed.cwd, fixed.home),
      runCli(["test"], fixed.cwd, fixed.home),
      runCli(["validate", "--strict"], fixed.cwd, fixed.home),
    ]);
    expect([validate.code, doctor.code, tested.code, strict.code]).toEqual([0, 0, 0, 1]);
    expect(strict.stderr).toContain("(--strict: warnings fail)");
    expect(validate.stdout).toBe(strict.stdout);
  });
});
