/**
 * A skill author's project that tests its skills with `bun test` against the installed
 * `skill-central` package: used by the release tests, which install it from tarballs and from a
 * registry.
 */

export const GREETING = `id: greeting
description: Greets someone
type: prompt
tags: [hello]
arguments:
  - { name: who, required: true }
prompt: "Hello, {{who}}!"
examples:
  - arguments: { who: Ada }
    expect: Hello, Ada!
`;

/** The README's example, plus the API's other calls, as a skill author writes them. */
export const CONSUMER_TEST = `import { test, expect } from "bun:test";
import { openSkills, SkillCentralError, type ExampleResult } from "skill-central";
const skills = await openSkills({ cwd: import.meta.dir });
test("commit message", async () => {
  expect(await skills.callTool("commit-conventions", { type: "fix", summary: "x" })).toBe("fix: x");
});
test("own prompt", async () => {
  expect(await skills.renderPrompt("greeting", { who: "Ada" })).toBe("Hello, Ada!");
});
test("invalid arguments", async () => {
  const error = await skills.callTool("commit-conventions", { type: "fix" }).catch((e) => e);
  expect(error).toBeInstanceOf(SkillCentralError);
  expect(error.problems).toEqual(['Missing required argument: "summary"']);
});
test("inline examples", async () => {
  const results: ExampleResult[] = await skills.runExamples();
  expect(results.length).toBeGreaterThan(0);
  expect(results.filter((r) => !r.pass)).toEqual([]);
});
`;

export const WRONG_TEST = `import { test, expect } from "bun:test";
import { openSkills } from "skill-central";
const skills = await openSkills({ cwd: import.meta.dir });
test("a deliberately wrong expectation", async () => {
  expect(await skills.callTool("commit-conventions", { type: "fix", summary: "x" })).toBe("fix: not what it returns");
});
`;
