/**
 * The newest eval results per skill in an eval workspace (docs/eval.md), for the board: each
 * skill's newest `iteration-N/benchmark.json` entry (a model run, with and without the skill) and
 * its newest `iteration-N/routing.json` entry (`eval --routing`), N the run's order. The files
 * are another process's output, read as they are and never trusted: a file that is not JSON, or
 * is half written, or an entry of the wrong shape is skipped with a warning at its file:line:col,
 * and the rest is read. Read once per board load and after the workspace changes, never per request.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Diagnostic, SourcePosition } from "../diagnostics.ts";
import { describeFsError } from "./fs-errors.ts";
import { jsonErrorOffset } from "./json-error.ts";

export const BENCHMARK_FILE = "benchmark.json";
export const ROUTING_FILE = "routing.json";

export const VERDICTS = ["better", "worse", "same", "not-run", "needs-recording"] as const;
export type Verdict = (typeof VERDICTS)[number];

/** One skill's entry of a model run's benchmark.json (the pinned format), the figures the board shows. */
export interface ModelResult {
  /** The N of `iteration-N`, and the file it came from. */
  iteration: number;
  file: string;
  /** metadata.timestamp, ISO, when the run wrote one. */
  timestamp?: string;
  model?: string;
  provider?: string;
  client?: string;
  /** metadata.threshold: the trigger rate a skill should reach. */
  threshold?: number;
  runsPerConfiguration?: number;
  replayed?: boolean;
  digest?: string;
  layer?: string;
  evalsRun: number;
  /** Share of with-skill runs where the server saw a trigger of this skill. */
  triggerRate: number | null;
  /** Mean pass rates, and with − without. */
  withSkill: number | null;
  withoutSkill: number | null;
  delta: number | null;
  verdict: Verdict;
  /** Runs that ended in an error rather than an answer. */
  errors: number;
}

/**
 * One skill's routing figures, as `eval --routing` works them out (registry/routing.ts) and
 * routing.json keeps them: the one shape the command, the file and the board share.
 */
export interface RoutingFigures {
  /** The skill is among those searched (a model may use it, or this client is shown it). */
  reachable: boolean;
  positives: number;
  negatives: number;
  /** Share of should-trigger queries where the skill ranked first, or within the first 3; null with none. */
  recallAt1: number | null;
  recallAt3: number | null;
  /** Should-not queries where the skill ranked first. */
  falseFires: number;
  /** For the should-trigger queries it did not win: who did (`(none)` when nothing matched), and how often. */
  wonInstead: Record<string, number>;
}

/** One skill's entry of `eval --routing`'s routing.json (src/commands/eval.ts's --json report). */
export interface RoutingResult extends RoutingFigures {
  iteration: number;
  file: string;
  /** When the file was written (routing.json carries no timestamp), milliseconds since the epoch. */
  writtenMs: number;
  /** The client whose plan the queries were ranked under (`--client`), when one was. */
  client?: string;
  /** `--min-recall` of that run, when one was given. */
  minRecall?: number;
}

export interface SkillResults {
  model?: ModelResult;
  routing?: RoutingResult;
}

export interface EvalResults {
  /** By skill id (benchmark.json's `skill_name`, routing.json's `skill`). */
  skills: Map<string, SkillResults>;
  /** `iteration-N` folders found. */
  iterations: number;
  /** Files or entries skipped, each a warning at its place. */
  problems: Diagnostic[];
}

const ITERATION = /^iteration-(\d+)$/;

/** The workspace's iterations, newest (highest N) first; none when it does not exist. */
function iterationsOf(workspace: string, problems: Diagnostic[]): { n: number; dir: string }[] {
  let names: string[];
  try {
    names = readdirSync(workspace);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ENOENT" && code !== "ENOTDIR")
      problems.push(warning(workspace, `cannot read the eval workspace: ${describeFsError(error)}`));
    return [];
  }
  return names
    .flatMap((name) => {
      const m = ITERATION.exec(name);
      return m ? [{ n: Number(m[1]), dir: join(workspace, name) }] : [];
    })
    .sort((a, b) => b.n - a.n);
}

function warning(file: string, message: string, position?: SourcePosition): Diagnostic {
  return {
    severity: "warning",
    code: "eval-results",
    file,
    message,
    ...(position && { position }),
    hint: "skipped; see docs/eval.md for the results format",
  };
}

function positionAt(text: string, offset: number): SourcePosition {
  const before = text.slice(0, Math.max(0, offset));
  return { line: before.split("\n").length, column: offset - before.lastIndexOf("\n") };
}

function jsonc(): typeof import("jsonc-parser/lib/esm/main.js") {
  return require("jsonc-parser/lib/esm/main.js") as typeof import("jsonc-parser/lib/esm/main.js");
}

/** Where the value at `path` starts in `text` (parsed again only for a problem), else its nearest container. */
function locate(text: string, path: readonly (string | number)[]): SourcePosition | undefined {
  const tree = jsonc().parseTree(text);
  if (tree === undefined) return undefined;
  for (let n = path.length; n >= 0; n--) {
    const node = jsonc().findNodeAtLocation(tree, path.slice(0, n) as (string | number)[]);
    if (node !== undefined) return positionAt(text, node.offset);
  }
  return undefined;
}

type Parsed = { text: string; value: unknown; writtenMs: number };

/** A results file as JSON; undefined when absent, or (with a warning) unreadable or not JSON. */
function readJson(file: string, problems: Diagnostic[]): Parsed | undefined {
  let text: string;
  let writtenMs: number;
  try {
    text = readFileSync(file, "utf8");
    writtenMs = statSync(file).mtimeMs;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ENOENT") problems.push(warning(file, `cannot read it: ${describeFsError(error)}`));
    return undefined;
  }
  try {
    return { text, value: JSON.parse(text), writtenMs };
  } catch (error) {
    const offset = jsonErrorOffset(text);
    problems.push(
      warning(
        file,
        `not valid JSON (half written, or not a results file): ${(error as Error).message.replace(/^JSON Parse error: /, "")}`,
        offset >= 0 ? positionAt(text, offset) : undefined,
      ),
    );
    return undefined;
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const share = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);
const str = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);
const mean = (summary: unknown): number | null =>
  isObject(summary) && isObject(summary.pass_rate) ? share(summary.pass_rate.mean) : null;

/** The `skills` list of a results file, or a warning when the file has none. */
function entriesOf(file: string, parsed: Parsed, problems: Diagnostic[]): unknown[] | undefined {
  const skills = isObject(parsed.value) ? parsed.value.skills : undefined;
  if (Array.isArray(skills)) return skills;
  problems.push(warning(file, "has no skills list", locate(parsed.text, ["skills"])));
  return undefined;
}

function modelResults(
  file: string,
  iteration: number,
  parsed: Parsed,
  problems: Diagnostic[],
): (ModelResult & { skill: string })[] {
  const entries = entriesOf(file, parsed, problems);
  if (entries === undefined) return [];
  const meta = isObject(parsed.value) && isObject(parsed.value.metadata) ? parsed.value.metadata : {};
  const run = {
    iteration,
    file,
    ...(str(meta.timestamp) !== undefined && { timestamp: str(meta.timestamp)! }),
    ...(str(meta.model) !== undefined && { model: str(meta.model)! }),
    ...(str(meta.provider) !== undefined && { provider: str(meta.provider)! }),
    ...(str(meta.client) !== undefined && { client: str(meta.client)! }),
    ...(share(meta.threshold) !== null && { threshold: share(meta.threshold)! }),
    ...(share(meta.runs_per_configuration) !== null && { runsPerConfiguration: share(meta.runs_per_configuration)! }),
    ...(typeof meta.replayed === "boolean" && { replayed: meta.replayed }),
  };
  return entries.flatMap((entry, i) => {
    const verdict = isObject(entry) ? entry.verdict : undefined;
    if (!isObject(entry) || str(entry.skill_name) === undefined || !VERDICTS.includes(verdict as Verdict)) {
      problems.push(
        warning(
          file,
          `skills[${i}] needs a skill_name and a verdict (${VERDICTS.join(", ")})`,
          locate(parsed.text, ["skills", i]),
        ),
      );
      return [];
    }
    const summary = isObject(entry.run_summary) ? entry.run_summary : {};
    const delta = isObject(summary.delta) ? share(summary.delta.pass_rate) : null;
    const runs = Array.isArray(entry.runs) ? entry.runs : [];
    return [
      {
        ...run,
        skill: entry.skill_name as string,
        ...(str(entry.digest) !== undefined && { digest: str(entry.digest)! }),
        ...(str(entry.layer) !== undefined && { layer: str(entry.layer)! }),
        evalsRun: Array.isArray(entry.evals_run) ? entry.evals_run.length : 0,
        triggerRate: share(entry.trigger_rate),
        withSkill: mean(summary.with_skill),
        withoutSkill: mean(summary.without_skill),
        delta,
        verdict: verdict as Verdict,
        errors: runs.filter((r) => isObject(r) && r.error !== null && r.error !== undefined).length,
      },
    ];
  });
}

function routingResults(
  file: string,
  iteration: number,
  parsed: Parsed,
  problems: Diagnostic[],
): (RoutingResult & { skill: string })[] {
  const entries = entriesOf(file, parsed, problems);
  if (entries === undefined) return [];
  const report = parsed.value as Record<string, unknown>;
  const run = {
    iteration,
    file,
    writtenMs: parsed.writtenMs,
    ...(str(report.client) !== undefined && { client: str(report.client)! }),
    ...(share(report.minRecall) !== null && { minRecall: share(report.minRecall)! }),
  };
  return entries.flatMap((entry, i) => {
    if (!isObject(entry) || str(entry.skill) === undefined || typeof entry.positives !== "number") {
      problems.push(
        warning(file, `skills[${i}] needs a skill and its counts (positives)`, locate(parsed.text, ["skills", i])),
      );
      return [];
    }
    const won = isObject(entry.wonInstead) ? entry.wonInstead : {};
    return [
      {
        ...run,
        skill: entry.skill as string,
        reachable: entry.reachable !== false,
        positives: entry.positives,
        negatives: share(entry.negatives) ?? 0,
        recallAt1: share(entry.recallAt1),
        recallAt3: share(entry.recallAt3),
        falseFires: share(entry.falseFires) ?? 0,
        wonInstead: Object.fromEntries(
          Object.entries(won).filter((e): e is [string, number] => typeof e[1] === "number"),
        ),
      },
    ];
  });
}

/** Each skill's newest model and routing results in `workspace` (absent: nothing, no problem). */
export function readEvalResults(workspace: string): EvalResults {
  const problems: Diagnostic[] = [];
  const skills = new Map<string, SkillResults>();
  const slot = (id: string) => {
    const s = skills.get(id) ?? {};
    skills.set(id, s);
    return s;
  };
  const iterations = iterationsOf(workspace, problems);
  /** A skill's newest "not-run" entry stands only when no older iteration ran it. */
  const notRun = new Map<string, ModelResult>();
  for (const { n, dir } of iterations) {
    const benchmark = readJson(join(dir, BENCHMARK_FILE), problems);
    if (benchmark !== undefined)
      for (const { skill, ...result } of modelResults(join(dir, BENCHMARK_FILE), n, benchmark, problems)) {
        if (slot(skill).model !== undefined) continue;
        if (result.verdict === "not-run") {
          if (!notRun.has(skill)) notRun.set(skill, result);
        } else slot(skill).model = result;
      }
    const routing = readJson(join(dir, ROUTING_FILE), problems);
    if (routing !== undefined)
      for (const { skill, ...result } of routingResults(join(dir, ROUTING_FILE), n, routing, problems))
        slot(skill).routing ??= result;
  }
  for (const [skill, result] of notRun) slot(skill).model ??= result;
  return { skills, iterations: iterations.length, problems };
}
