/**
 * Grading an eval run (src/evaluate/assertions.ts, outputs.ts) and summing runs into
 * benchmark.json (benchmark.ts): the assertion mini-syntax checked by code, free text not graded
 * without a grader model (never a pass), a model grader's verdict, files produced from fenced
 * blocks (never outside the run), and the verdicts and failures that set the exit status.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { grade } from "../../src/evaluate/assertions.ts";
import { failures, type RunRecord, skillBenchmark, stat } from "../../src/evaluate/benchmark.ts";
import { writeOutputs } from "../../src/evaluate/outputs.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function answer(text: string) {
  const outputs = mkdtempSync(join(tmpdir(), "outputs-"));
  dirs.push(outputs);
  writeOutputs(text, outputs);
  return { text, outputs, root: outputs };
}

describe("assertions", () => {
  test("contains, not-contains, regex, json-schema and file are graded by code", async () => {
    const a = answer('## Summary\nAll good.\n```json\n{"ok": true}\n```\n```text report.txt\nhello\n```\n');
    const g = await grade(
      [
        "contains: summary",
        "not-contains: error",
        "regex: /^## Summary$/m",
        'json-schema: {"type":"object","required":["ok"]}',
        'json-schema: {"type":"object","required":["missing"]}',
        "file: report.txt",
        "file: other.txt",
        "regex: /(/",
      ],
      a,
    );
    expect(g.expectations.map((e) => [e.grader, e.passed])).toEqual([
      ["contains", true],
      ["contains", true],
      ["regex", true],
      ["json-schema", true],
      ["json-schema", false],
      ["file", true],
      ["file", false],
      ["regex", false],
    ]);
    expect(g.expectations[7]!.evidence).toContain("not a valid pattern");
    // Rounded to two places, as skill-creator writes it.
    expect(g.summary).toEqual({ passed: 5, failed: 3, total: 8, pass_rate: 0.63 });
  });

  test("free text is not graded without a grader model, and never counts as passed; with one, its verdict counts", async () => {
    const a = answer("fine");
    const none = await grade(["is polite"], a);
    expect(none.expectations).toEqual([
      { text: "is polite", passed: false, evidence: "not graded: free text needs --grader-model", grader: "none" },
    ]);
    expect(none.summary.passed).toBe(0);
    const graded = await grade(["is polite", { text: "is short" }], a, async (assertion) => ({
      passed: assertion === "is polite",
      evidence: "checked",
    }));
    expect(graded.expectations.map((e) => [e.text, e.grader, e.passed])).toEqual([
      ["is polite", "model", true],
      ["is short", "model", false],
    ]);
  });

  test("a fenced block names the file it is; a name that would leave outputs/ is ignored", () => {
    const a = answer(
      "```md notes/a.md\nA\n```\n```file=b.txt\nB\n```\n```sh ../escape.sh\nrm\n```\n```js /etc/x.js\n1\n```\n",
    );
    expect(readFileSync(join(a.outputs, "notes", "a.md"), "utf8")).toBe("A\n");
    expect(readFileSync(join(a.outputs, "b.txt"), "utf8")).toBe("B\n");
    expect(existsSync(join(a.outputs, "..", "escape.sh"))).toBe(false);
    expect(existsSync(join(a.outputs, "etc", "x.js"))).toBe(false);
  });
});

const run = (
  configuration: "with_skill" | "without_skill",
  pass_rate: number,
  extra: Partial<RunRecord> = {},
): RunRecord => ({
  eval_id: 1,
  configuration,
  run_number: 1,
  pass_rate,
  passed: 0,
  total: 1,
  triggered: configuration === "with_skill",
  time_seconds: 2,
  tokens: 100,
  error: null,
  ...extra,
});
const skill = { id: "s", digest: "sha256:1", layer: "project" };

describe("benchmark", () => {
  test("mean, sample standard deviation, min and max", () => {
    expect(stat([1, 0.5, 0])).toEqual({ mean: 0.5, stddev: 0.5, min: 0, max: 1 });
    expect(stat([])).toEqual({ mean: 0, stddev: 0, min: 0, max: 0 });
  });

  test("verdicts: better, worse, same from the mean pass rates; delta is with − without; errored runs are listed, not counted", () => {
    const better = skillBenchmark(
      skill,
      [run("with_skill", 1), run("with_skill", 0.5), run("without_skill", 0.25)],
      false,
    );
    expect(better.verdict).toBe("better");
    expect(better.run_summary.delta).toEqual({ pass_rate: 0.5, time_seconds: 0, tokens: 0 });
    const worse = skillBenchmark(skill, [run("with_skill", 0), run("without_skill", 1)], false);
    expect([worse.verdict, failures(worse, 0.5)]).toEqual(["worse", ["scored worse with the skill than without it"]]);
    const errored = skillBenchmark(
      skill,
      [run("with_skill", 0, { error: "boom" }), run("with_skill", 1), run("without_skill", 1)],
      false,
    );
    expect([errored.verdict, errored.trigger_rate, errored.runs.length]).toEqual(["same", 1, 3]);
    expect(failures(errored, 0.5)).toEqual(["1 run failed with an error"]);
  });

  test("trigger rate under the threshold fails; needs-recording and not-run have no rate", () => {
    const missed = skillBenchmark(skill, [run("with_skill", 1, { triggered: false }), run("without_skill", 1)], false);
    expect(failures(missed, 0.5)).toEqual(["trigger rate 0% is under the threshold 50%"]);
    const stale = skillBenchmark(skill, [], true);
    expect([stale.verdict, stale.trigger_rate]).toEqual(["needs-recording", null]);
    expect(failures(stale, 0.5)).toEqual(["has no recording for its current digest (record it again)"]);
    expect(skillBenchmark(skill, [], false).verdict).toBe("not-run");
  });
});
