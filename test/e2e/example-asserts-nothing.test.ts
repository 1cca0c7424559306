import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { openSkills, type ExampleResult } from "../../src/api.ts";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";
import { runCli, runCliJson } from "./cli-run.ts";

/**
 * An inline example whose only check is misspelt (`expcet:`) asserts nothing: `skill-central
 * test`, `validate` and `openSkills().runExamples()` all fail it, naming the key and the field it
 * resembles. An example with a real check beside an unknown key, or with `arguments` alone (a
 * documented smoke test: the call succeeds), still passes.
 */
const FILES: Record<string, string> = {
  "skill-central.yaml": "builtin: false\nlayers:\n  - { name: main, path: ./.skills, priority: 10 }\n",
  ".skills/greet.yaml":
    "id: greet\ndescription: Greets someone by name before a meeting\ntype: prompt\nprompt: 'Hello {{who}}!'\nexamples:\n" +
    "  - arguments: { who: Ada }\n    expcet: 'Hello Ada!'\n" +
    "  - arguments: { who: Bob }\n    contains: [Bob]\n    exepct: 'Hello Bob!'\n" +
    "  - arguments: { who: Cy }\n",
  ".skills/notes/SKILL.md":
    "---\nname: notes\ndescription: Takes notes on whatever the user says next\n---\nNotes on $ARGUMENTS\n",
  ".skills/notes/examples.yaml": "- arguments: { arguments: x }\n  contain: [x]\n  expekt: y\n",
};

const GREET_REASON =
  'the example asserts nothing: "expcet" (did you mean "expect"?) is not a field of an example; check the output with "expect", "contains" or "error"';
const NOTES_REASON =
  'the example asserts nothing: "contain" (did you mean "contains"?), "expekt" (did you mean "expect"?) are not fields of an example; check the output with "expect", "contains" or "error"';

let fixture: Fixture;
beforeAll(() => {
  fixture = makeFixture(FILES);
});
afterAll(() => fixture.cleanup());

describe("an example that asserts nothing", () => {
  test("skill-central test fails it, says why at its position, and counts it as failed", async () => {
    const run = await runCli(["test"], fixture.cwd, fixture.home, { NO_COLOR: "1" });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      `FAIL  greet example 1  .skills/greet.yaml:6:5\n      ${GREET_REASON}\n      arguments: {"who":"Ada"}\n`,
    );
    expect(run.stdout).toContain("pass  greet example 2\npass  greet example 3\n");
    expect(run.stdout).toContain(`FAIL  notes example 1  .skills/notes/examples.yaml\n      ${NOTES_REASON}\n`);
    expect(run.stdout).toEndWith("4 examples: 2 passed, 2 failed\n");
    // The load's warnings still name each key.
    expect(run.stderr).toContain(
      '.skills/greet.yaml:7:5: warning: unknown field "expcet" in example 1 is ignored — did you mean "expect"?',
    );
  });

  test("test --json: the failure kind is asserts-nothing", async () => {
    const run = await runCliJson<{ passed: number; failed: number; results: ExampleResult[] }>(
      ["test"],
      fixture.cwd,
      fixture.home,
    );
    expect(run.code).toBe(1);
    expect([run.json.passed, run.json.failed]).toEqual([2, 2]);
    expect(run.json.results.filter((r) => !r.pass).map((r) => [r.id, r.number, r.failure, r.reason])).toEqual([
      ["greet", 1, "asserts-nothing", GREET_REASON],
      ["notes", 1, "asserts-nothing", NOTES_REASON],
    ]);
  });

  test("validate counts it as an error (exit 1), with the warning for each unknown key", async () => {
    const run = await runCli(["validate"], fixture.cwd, fixture.home, { NO_COLOR: "1" });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      `.skills/greet.yaml:6:5: error: example 1 of "greet": ${GREET_REASON} — run \`skill-central test greet\` for the details\n`,
    );
    expect(run.stdout).toContain(`.skills/notes/examples.yaml: error: example 1 of "notes": ${NOTES_REASON}`);
    expect(run.stderr).toBe("2 errors, 4 warnings in 2 files; 4 examples run, 2 failed\n");
  });

  test("openSkills().runExamples() agrees with the CLI", async () => {
    const skills = await openSkills({ cwd: fixture.cwd, home: fixture.home });
    const results = await skills.runExamples();
    expect(results.map((r) => [r.id, r.number, r.pass, r.failure ?? null])).toEqual([
      ["greet", 1, false, "asserts-nothing"],
      ["greet", 2, true, null],
      ["greet", 3, true, null],
      ["notes", 1, false, "asserts-nothing"],
    ]);
    expect(results[0]!.reason).toBe(GREET_REASON);
    // A folder's example is reported in its examples file, not in SKILL.md.
    expect(results[3]!.source).toBe(".skills/notes/examples.yaml");
  });
});
