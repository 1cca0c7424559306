import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { readEvalResults } from "../../src/storage/eval-results.ts";
import { makeFixture } from "../helpers/fixture.ts";

/**
 * test/fixtures/eval-workspace, in the pinned results format: iteration-1 (a model run where
 * review-pr is worse than its baseline, sql-helper and deploy better; a routing run with a
 * routing-only skill, paint-walls), then iteration-2 (a replayed run: review-pr better, deploy
 * worse, changelog needs a recording, sql-helper not run, an entry with no verdict; its
 * routing.json cut off mid-write).
 */
const WORKSPACE = join(import.meta.dir, "..", "fixtures", "eval-workspace");
const { skills, problems, iterations } = readEvalResults(WORKSPACE);
const bench = (n: number) => join(WORKSPACE, `iteration-${n}`, "benchmark.json");
const routing = (n: number) => join(WORKSPACE, `iteration-${n}`, "routing.json");

describe("the newest eval results per skill", () => {
  test("each skill's model result is from the newest iteration that ran it", () => {
    expect(iterations).toBe(2);
    const summary = Object.fromEntries(
      [...skills].map(([id, r]) => [id, r.model && `${r.model.iteration} ${r.model.verdict} ${r.model.delta}`]),
    );
    expect(summary).toEqual({
      "review-pr": "2 better 0.25",
      deploy: "2 worse -0.3",
      changelog: "2 needs-recording null",
      // iteration-2 did not run it ("not-run"): iteration-1's run stands.
      "sql-helper": "1 better 0.5",
      "paint-walls": undefined,
    });
  });

  test("a model result carries the run's figures and metadata", () => {
    expect(skills.get("deploy")?.model).toEqual({
      iteration: 2,
      file: bench(2),
      timestamp: "2026-12-02T10:00:00.000Z",
      model: "claude-sonnet-4-5",
      provider: "anthropic",
      client: "claude-code",
      threshold: 0.5,
      runsPerConfiguration: 3,
      replayed: true,
      digest: `sha256:${"a".repeat(64)}`,
      layer: "project",
      evalsRun: 1,
      triggerRate: 0.33,
      withSkill: 0.4,
      withoutSkill: 0.7,
      delta: -0.3,
      verdict: "worse",
      errors: 0,
    });
  });

  test("routing results: the newest readable routing.json holding the skill, a routing-only skill included", () => {
    const r = skills.get("paint-walls")?.routing;
    expect(r).toMatchObject({
      iteration: 1,
      file: routing(1),
      minRecall: 0.8,
      reachable: true,
      positives: 4,
      negatives: 2,
      recallAt1: 0.5,
      recallAt3: 0.75,
      falseFires: 0,
      wonInstead: { "(none)": 1, "room-plan": 1 },
    });
    expect(r?.writtenMs).toBeGreaterThan(0);
    // iteration-2's routing.json is cut off: review-pr's routing comes from iteration-1.
    expect(skills.get("review-pr")?.routing).toMatchObject({ iteration: 1, recallAt1: 0.86 });
    expect(skills.get("deploy")?.routing).toBeUndefined();
  });

  test("a half-written file and an entry of the wrong shape are skipped with a warning at file:line:col", () => {
    expect(problems.map((d) => ({ file: d.file, at: d.position, severity: d.severity, message: d.message }))).toEqual([
      {
        file: bench(2),
        at: { line: 172, column: 5 },
        severity: "warning",
        message: "skills[4] needs a skill_name and a verdict (better, worse, same, not-run, needs-recording)",
      },
      {
        file: routing(2),
        at: { line: 10, column: 7 },
        severity: "warning",
        message: expect.stringMatching(/^not valid JSON \(half written, or not a results file\): ./),
      },
    ]);
  });

  test("no workspace: nothing, and no problem; iteration-10 is newer than iteration-9; a stray file is no iteration", () => {
    expect(readEvalResults(join(WORKSPACE, "absent"))).toEqual({ skills: new Map(), iterations: 0, problems: [] });
    const entry = (skill: string, verdict: string) => ({ skill_name: skill, verdict, run_summary: {} });
    const f = makeFixture({
      "ws/iteration-9/benchmark.json": JSON.stringify({ metadata: {}, skills: [entry("a", "worse")] }),
      "ws/iteration-10/benchmark.json": JSON.stringify({ metadata: {}, skills: [entry("a", "same")] }),
      "ws/iteration-x/benchmark.json": "not read",
      "ws/notes.txt": "not an iteration",
      "ws/iteration-11/benchmark.json": JSON.stringify({ results: [] }),
    });
    try {
      const read = readEvalResults(join(f.cwd, "ws"));
      expect(read.iterations).toBe(3);
      expect(read.skills.get("a")?.model).toMatchObject({ iteration: 10, verdict: "same", withSkill: null });
      expect(read.problems.map((d) => `${d.position?.line}:${d.position?.column} ${d.message}`)).toEqual([
        "1:1 has no skills list",
      ]);
    } finally {
      f.cleanup();
    }
  });
});
