import { afterEach, describe, expect, test } from "bun:test";
import { formatDiff, lineDiff } from "../../src/examples/diff.ts";
import { invokePrompt, invokeSkill, invokeTool } from "../../src/invoke/invoke.ts";
import { runExamples } from "../../src/examples/run.ts";
import { judge } from "../../src/examples/judge.ts";
import { loadSkills, locatorsOf } from "../../src/load/load-skills.ts";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";

describe("judging an example against its call's outcome", () => {
  const ok = (text: string) => ({ ok: true as const, text });
  const failed = (message: string) => ({ ok: false as const, message });

  test("expect is the exact text", () => {
    expect(judge({ expect: "fix: x" }, ok("fix: x"))).toEqual({ pass: true });
    expect(judge({ expect: "fix: x" }, ok("fix: y"))).toMatchObject({
      pass: false,
      failure: "text-differs",
      expected: "fix: x",
      actual: "fix: y",
    });
    expect(judge({ expect: "fix: x" }, ok("fix: x and more"))).toMatchObject({ pass: false });
  });

  test("the trailing newline of a YAML block scalar in expect is not compared", () => {
    expect(judge({ expect: "line one\nline two\n" }, ok("line one\nline two"))).toEqual({ pass: true });
    expect(judge({ expect: "  indented" }, ok("indented"))).toMatchObject({ pass: false });
  });

  test("contains lists substrings, and a failure names the missing ones", () => {
    expect(judge({ contains: ["a", "c"] }, ok("abc"))).toEqual({ pass: true });
    expect(judge({ contains: ["a", "x", "y"] }, ok("abc"))).toMatchObject({
      pass: false,
      failure: "text-missing",
      missing: ["x", "y"],
    });
  });

  test("expect and contains together must both hold", () => {
    expect(judge({ expect: "abc", contains: ["b"] }, ok("abc"))).toEqual({ pass: true });
    expect(judge({ expect: "abc", contains: ["z"] }, ok("abc"))).toMatchObject({
      pass: false,
      failure: "text-missing",
    });
  });

  test("error passes only when the call fails with a message containing it", () => {
    expect(judge({ error: "Missing required" }, failed('Missing required argument: "x"'))).toEqual({ pass: true });
    expect(judge({ error: "Missing required" }, ok("fine"))).toMatchObject({
      pass: false,
      failure: "unexpected-success",
      actual: "fine",
    });
    expect(judge({ error: "must be an integer" }, failed('Missing required argument: "x"'))).toMatchObject({
      pass: false,
      failure: "wrong-error",
    });
  });

  test("an example without expectations passes when the call succeeds and fails when it fails", () => {
    expect(judge({}, ok("anything"))).toEqual({ pass: true });
    expect(judge({}, failed("Unknown tool: x"))).toMatchObject({
      pass: false,
      failure: "call-failed",
      reason: "the call failed: Unknown tool: x",
    });
  });

  test("an example whose only check is a key that is not a field (a misspelt expect) asserts nothing and fails, naming the key", () => {
    expect(judge({ unknownFields: ["expcet"] }, ok("Hello"))).toEqual({
      pass: false,
      failure: "asserts-nothing",
      reason:
        'the example asserts nothing: "expcet" (did you mean "expect"?) is not a field of an example; check the output with "expect", "contains" or "error"',
      actual: "Hello",
    });
    expect(judge({ unknownFields: ["zzzzzz"] }, failed("boom"))).toMatchObject({
      pass: false,
      failure: "asserts-nothing",
      reason: expect.stringContaining('"zzzzzz" is not a field'),
    });
    // A real check beside the unknown key still judges the output (the load warns about the key).
    expect(judge({ unknownFields: ["exepct"], contains: ["ell"] }, ok("Hello"))).toEqual({ pass: true });
    expect(judge({ unknownFields: ["exepct"], error: "boom" }, failed("boom"))).toEqual({ pass: true });
  });

  test("an example asking for both an error and output is itself wrong", () => {
    expect(judge({ error: "x", expect: "y" }, failed("x"))).toMatchObject({ pass: false, failure: "invalid-example" });
  });
});

describe("line diff", () => {
  test("marks removed and added lines around common ones", () => {
    expect(lineDiff("a\nb\nc", "a\nB\nc")).toEqual([
      { kind: " ", text: "a" },
      { kind: "-", text: "b" },
      { kind: "+", text: "B" },
      { kind: " ", text: "c" },
    ]);
    expect(lineDiff("same", "same")).toEqual([{ kind: " ", text: "same" }]);
  });

  test("folds long unchanged runs and shows invisible whitespace", () => {
    const expected = ["x", ...Array.from({ length: 10 }, (_, i) => `line ${i}`), "end"].join("\n");
    const actual = ["x ", ...Array.from({ length: 10 }, (_, i) => `line ${i}`), "end"].join("\n");
    const shown = formatDiff(lineDiff(expected, actual));
    expect(shown[0]).toBe("- x");
    expect(shown[1]).toBe("+ x·");
    expect(shown).toContain("  … 8 unchanged lines");
    expect(shown.length).toBeLessThan(12);
  });

  test("past 500 edits: every expected line removed, then every actual line added", () => {
    const expected = Array.from({ length: 600 }, (_, i) => `e${i}`);
    const actual = Array.from({ length: 600 }, (_, i) => `a${i}`);
    const lines = lineDiff(expected.join("\n"), actual.join("\n"));
    expect(lines).toEqual([
      ...expected.map((text) => ({ kind: "-" as const, text })),
      ...actual.map((text) => ({ kind: "+" as const, text })),
    ]);
  });
});

let fixture: Fixture | undefined;
afterEach(() => fixture?.cleanup());

async function project(files: Record<string, string>) {
  fixture = makeFixture({
    "skill-central.yaml":
      "builtin: false\nlayers:\n  - { name: low, path: ./low, priority: 10 }\n  - { name: high, path: ./high, priority: 20 }\n",
    ...files,
  });
  const loaded = await loadSkills({ cwd: fixture.cwd, home: fixture.home, keepLocators: true });
  return { ...loaded, locate: locatorsOf(loaded) };
}

const GREET = `id: greet
description: Greets
type: prompt
arguments:
  - { name: who, required: true }
prompt: |
  Hello, {{who}}!
examples:
  - arguments: { who: Ada }
    expect: |
      Hello, Ada!
  - arguments: { who: Ada }
    expect: Hello, Bob!
  - arguments: {}
    error: 'Missing required argument: "who"'
  - arguments: { who: 3 }
`;

const COUNT = `id: count
description: Counts
type: tool
inputSchema:
  type: object
  properties: { n: { type: integer, minimum: 1 } }
  required: [n]
prompt: "n={{n}}"
examples:
  - arguments: { n: 2 }
    expect: n=2
  - arguments: { n: 0 }
    error: must be >= 1
`;

describe("running inline examples through the server's calls", () => {
  test("prompt and tool examples pass or fail as the server would answer", async () => {
    const { registry, locate } = await project({ "high/greet.yaml": GREET, "high/count.yaml": COUNT });
    const results = await runExamples(registry, [registry.get("greet")!, registry.get("count")!], { locate });
    expect(results.map((r) => [r.id, r.number, r.pass])).toEqual([
      ["greet", 1, true],
      ["greet", 2, false],
      ["greet", 3, true],
      ["greet", 4, false],
      ["count", 1, true],
      ["count", 2, true],
    ]);
    expect(results[1]).toMatchObject({
      failure: "text-differs",
      expected: "Hello, Bob!",
      actual: "Hello, Ada!",
      source: "high/greet.yaml",
    });
    // prompts/get carries strings only: a number is refused, not rendered.
    expect(results[3]!.reason).toContain("prompt arguments must be strings");
  });

  test("a failed example points at the line where it is written", async () => {
    const { registry, locate } = await project({ "high/greet.yaml": GREET });
    const results = await runExamples(registry, [registry.get("greet")!], { locate });
    expect(results[1]!.position).toEqual({ line: 12, column: 5 });
    expect(results[0]!.position).toBeUndefined();
  });

  test("a shadowed candidate's examples run against that candidate, not the winner", async () => {
    const low = "id: same\ndescription: low\ntype: prompt\nprompt: low\nexamples:\n  - { expect: low }\n";
    const high = "id: same\ndescription: high\ntype: prompt\nprompt: high\nexamples:\n  - { expect: high }\n";
    const { registry, locate } = await project({ "low/same.yaml": low, "high/same.yaml": high });
    const candidates = registry.resolution("same")!.chain.map((p) => p.candidate);
    const results = await runExamples(registry, candidates, { locate });
    expect(results.map((r) => [r.source, r.pass])).toEqual([
      ["high/same.yaml", true],
      ["low/same.yaml", true],
    ]);
  });
});

describe("invoking skills as prompts/get and tools/call do", () => {
  test("tool validation problems become one error whose message is the tool result's text", async () => {
    const { registry } = await project({ "high/count.yaml": COUNT });
    const result = await invokeTool(registry, "count", { n: "x", extra: 1 });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe("invalid-arguments");
    expect(result.error.problems).toEqual(['Argument "n" must be an integer']);
    expect(result.error.message).toBe(result.error.problems.join("\n"));
  });

  test("skills:compose is dispatched with its tags; unknown names fail with the wire messages", async () => {
    const { registry } = await project({
      "high/a.yaml": "id: a\ndescription: a\ntype: prompt\ntags: [t]\nprompt: A {{x}}\n",
      "high/b.yaml": "id: b\ndescription: b\ntype: prompt\ntags: [t]\nprompt: B\n",
    });
    expect(invokePrompt(registry, "skills:compose", { tags: "T", x: "1" })).toEqual({
      ok: true,
      text: "## a\nA 1\n\n---\n\n## b\nB",
    });
    const unknown = await invokeSkill(registry, "nope", {});
    expect(unknown.ok === false && unknown.error.message).toBe("Unknown prompt skill: nope");
    const tool = await invokeTool(registry, "a", {});
    expect(tool.ok === false && tool.error.message).toBe("Unknown tool: a");
  });
});
