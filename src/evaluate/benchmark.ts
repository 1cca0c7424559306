/**
 * `benchmark.json` of a model run, in the pinned results format the board reads (docs/eval.md):
 * per skill, each run's outcome, the mean, spread and range of pass rate, time and tokens with
 * and without the skill, the delta (with − without), the trigger rate and a verdict. Pure
 * arithmetic over the runs, so the text report, `--json` and the file all say the same.
 */
export type Configuration = "with_skill" | "without_skill";
export type Verdict = "better" | "worse" | "same" | "not-run" | "needs-recording";

export interface RunRecord {
  eval_id: number | string;
  configuration: Configuration;
  run_number: number;
  pass_rate: number;
  passed: number;
  total: number;
  triggered: boolean;
  time_seconds: number;
  tokens: number;
  error: string | null;
}

export interface Stat {
  mean: number;
  stddev: number;
  min: number;
  max: number;
}

export interface ConfigurationSummary {
  pass_rate: Stat;
  time_seconds: Stat;
  tokens: Stat;
}

export interface SkillBenchmark {
  skill_name: string;
  digest: string;
  layer: string;
  evals_run: (number | string)[];
  /** Share of the completed with_skill runs where the server saw a trigger of this skill; null with none. */
  trigger_rate: number | null;
  run_summary: {
    with_skill: ConfigurationSummary | null;
    without_skill: ConfigurationSummary | null;
    delta: { pass_rate: number; time_seconds: number; tokens: number } | null;
  };
  verdict: Verdict;
  runs: RunRecord[];
}

export interface Benchmark {
  metadata: {
    tool: "skill-central";
    version: string;
    timestamp: string;
    model: string;
    provider: "openai" | "anthropic";
    client: string;
    runs_per_configuration: number;
    threshold: number;
    replayed: boolean;
    grader_model?: string;
  };
  skills: SkillBenchmark[];
}

const round = (n: number, places = 4) => Math.round(n * 10 ** places) / 10 ** places;

export function stat(values: readonly number[]): Stat {
  if (values.length === 0) return { mean: 0, stddev: 0, min: 0, max: 0 };
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  // The sample standard deviation: runs are a sample of what the model does.
  const variance = values.length < 2 ? 0 : values.reduce((a, v) => a + (v - mean) ** 2, 0) / (values.length - 1);
  return {
    mean: round(mean),
    stddev: round(Math.sqrt(variance)),
    min: round(values.reduce((a, v) => Math.min(a, v), Number.POSITIVE_INFINITY)),
    max: round(values.reduce((a, v) => Math.max(a, v), Number.NEGATIVE_INFINITY)),
  };
}

function summary(runs: readonly RunRecord[]): ConfigurationSummary | null {
  if (runs.length === 0) return null;
  return {
    pass_rate: stat(runs.map((r) => r.pass_rate)),
    time_seconds: stat(runs.map((r) => r.time_seconds)),
    tokens: stat(runs.map((r) => r.tokens)),
  };
}

/** Means closer than this are the same: a pass rate is a fraction of a few assertions. */
const SAME = 1e-9;

/** The skill's benchmark from its runs (a run that failed with an error is listed, not counted). */
export function skillBenchmark(
  skill: { id: string; digest: string; layer: string },
  runs: RunRecord[],
  needsRecording: boolean,
): SkillBenchmark {
  const done = runs.filter((r) => r.error === null);
  const withSkill = summary(done.filter((r) => r.configuration === "with_skill"));
  const withoutSkill = summary(done.filter((r) => r.configuration === "without_skill"));
  const triggeredRuns = done.filter((r) => r.configuration === "with_skill");
  const delta =
    withSkill && withoutSkill
      ? {
          pass_rate: round(withSkill.pass_rate.mean - withoutSkill.pass_rate.mean),
          time_seconds: round(withSkill.time_seconds.mean - withoutSkill.time_seconds.mean),
          tokens: round(withSkill.tokens.mean - withoutSkill.tokens.mean),
        }
      : null;
  const verdict: Verdict = needsRecording
    ? "needs-recording"
    : delta === null
      ? "not-run"
      : delta.pass_rate < -SAME
        ? "worse"
        : delta.pass_rate > SAME
          ? "better"
          : "same";
  return {
    skill_name: skill.id,
    digest: skill.digest,
    layer: skill.layer,
    evals_run: [...new Set(runs.map((r) => r.eval_id))],
    trigger_rate:
      triggeredRuns.length === 0 ? null : round(triggeredRuns.filter((r) => r.triggered).length / triggeredRuns.length),
    run_summary: { with_skill: withSkill, without_skill: withoutSkill, delta },
    verdict,
    runs,
  };
}

/** Why a skill fails the run (the exit status), or nothing. */
export function failures(skill: SkillBenchmark, threshold: number): string[] {
  const why: string[] = [];
  if (skill.verdict === "worse") why.push("scored worse with the skill than without it");
  if (skill.verdict === "needs-recording") why.push("has no recording for its current digest (record it again)");
  if (skill.trigger_rate !== null && skill.trigger_rate < threshold)
    why.push(
      `trigger rate ${Math.round(skill.trigger_rate * 100)}% is under the threshold ${Math.round(threshold * 100)}%`,
    );
  const errors = skill.runs.filter((r) => r.error !== null).length;
  if (errors > 0) why.push(`${errors} run${errors === 1 ? "" : "s"} failed with an error`);
  return why;
}
