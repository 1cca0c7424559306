/**
 * The board's Evals: each skill's last results in the eval workspace (`eval.workspace`, else
 * `eval-workspace/` in the project; docs/eval.md), read once per load and again when the
 * workspace changes (evals-watch.ts), and mapped to the page's view, worst first: a skill worse
 * than its baseline, then one under a threshold (trigger rate, or routing recall@1 under the
 * run's --min-recall), then one whose recording is missing, then the rest; and the served skills
 * that have a trigger set or test cases but no result ("not run").
 */
import { existsSync } from "node:fs";
import { evalWorkspace } from "../config/eval-settings.ts";
import type { LoadResult } from "../load/load-skills.ts";
import { evalPathsOf } from "../storage/eval-files.ts";
import { type EvalResults, type ModelResult, readEvalResults, type RoutingResult } from "../storage/eval-results.ts";
import type { EvalRow, EvalStanding, EvalsView, ModelEval, RoutingEval } from "./wire.ts";

/** A load's eval workspace and what was read from it. */
export interface BoardEvals {
  workspace: string;
  configured: boolean;
  results: EvalResults;
}

/**
 * The workspace `result`'s config names (or the default in `project`), read now; `watch` is
 * told where it is first, so a change made while it is read is not missed.
 */
export function readBoardEvals(
  result: Pick<LoadResult, "config">,
  project: string,
  watch?: (workspace: string) => void,
): BoardEvals {
  const { dir, configured } = evalWorkspace(result.config.eval, project);
  watch?.(dir);
  return { workspace: dir, configured, results: readEvalResults(dir) };
}

const percent = (share: number) => `${Math.round(share * 100)}%`;

function routingEval(r: RoutingResult): RoutingEval {
  return {
    iteration: r.iteration,
    at: new Date(r.writtenMs).toISOString(),
    ...(r.client !== undefined && { client: r.client }),
    ...(r.minRecall !== undefined && { minRecall: r.minRecall }),
    reachable: r.reachable,
    positives: r.positives,
    negatives: r.negatives,
    recallAt1: r.recallAt1,
    recallAt3: r.recallAt3,
    falseFires: r.falseFires,
    wonInstead: Object.entries(r.wonInstead)
      .map(([skill, times]) => ({ skill, times }))
      .sort((a, b) => b.times - a.times || (a.skill < b.skill ? -1 : 1)),
  };
}

function modelEval(m: ModelResult): ModelEval {
  const { iteration, timestamp, model, provider, client, replayed, threshold, runsPerConfiguration } = m;
  return {
    iteration,
    ...(timestamp !== undefined && { at: timestamp }),
    ...(model !== undefined && { model }),
    ...(provider !== undefined && { provider }),
    ...(client !== undefined && { client }),
    ...(replayed !== undefined && { replayed }),
    ...(threshold !== undefined && { threshold }),
    ...(runsPerConfiguration !== undefined && { runsPerConfiguration }),
    evalsRun: m.evalsRun,
    withSkill: m.withSkill,
    withoutSkill: m.withoutSkill,
    delta: m.delta,
    triggerRate: m.triggerRate,
    verdict: m.verdict,
    errors: m.errors,
  };
}

/** The first of the standings that applies, and why in words. */
function standingOf(model: ModelEval | undefined, routing: RoutingEval | undefined): Pick<EvalRow, "standing" | "why"> {
  if (model?.verdict === "worse")
    return {
      standing: "worse",
      why:
        model.withSkill !== null && model.withoutSkill !== null
          ? `worse than without it: ${percent(model.withSkill)} of checks passed with the skill, ${percent(model.withoutSkill)} without`
          : "worse than without it",
    };
  if (model?.triggerRate != null && model.threshold !== undefined && model.triggerRate < model.threshold)
    return {
      standing: "under-threshold",
      why: `trigger rate ${percent(model.triggerRate)} is under the threshold ${percent(model.threshold)}`,
    };
  if (routing && !routing.reachable)
    return { standing: "under-threshold", why: `not reachable by ${routing.client ?? "the client"} under its plan` };
  if (routing?.recallAt1 != null && routing.minRecall !== undefined && routing.recallAt1 < routing.minRecall)
    return {
      standing: "under-threshold",
      why: `routing recall@1 ${percent(routing.recallAt1)} is under --min-recall ${percent(routing.minRecall)}`,
    };
  if (model?.verdict === "needs-recording")
    return { standing: "needs-recording", why: "the skill changed since the recording: record the model run again" };
  return { standing: "ok" };
}

const STANDING_ORDER: readonly EvalStanding[] = ["worse", "under-threshold", "needs-recording", "ok"];

/** Worst first: by standing, then the lower delta, then the lower recall@1, then by id. */
function worstFirst(a: EvalRow, b: EvalRow): number {
  const low = (v: number | null | undefined) => v ?? Number.POSITIVE_INFINITY;
  return (
    STANDING_ORDER.indexOf(a.standing) - STANDING_ORDER.indexOf(b.standing) ||
    low(a.model?.delta) - low(b.model?.delta) ||
    low(a.routing?.recallAt1) - low(b.routing?.recallAt1) ||
    (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  );
}

/** The page's Evals view of `evals` against the served skills of `result`. */
export function evalsView(result: Pick<LoadResult, "registry" | "display">, evals: BoardEvals): EvalsView {
  const served = result.registry.served();
  const ids = new Set(served.map((c) => c.skill.id));
  const rows: EvalRow[] = [...evals.results.skills].map(([id, found]) => {
    const routing = found.routing && routingEval(found.routing);
    const model = found.model && modelEval(found.model);
    return {
      id,
      served: ids.has(id),
      ...standingOf(model, routing),
      ...(routing && { routing }),
      ...(model && { model }),
    };
  });
  const notRun = served.flatMap((c) => {
    if (evals.results.skills.has(c.skill.id)) return [];
    const paths = evalPathsOf(c.path);
    const triggerSet = existsSync(paths.triggers);
    const testCases = existsSync(paths.evals);
    return triggerSet || testCases ? [{ id: c.skill.id, triggerSet, testCases }] : [];
  });
  return {
    workspace: result.display(evals.workspace),
    configured: evals.configured,
    iterations: evals.results.iterations,
    results: rows.sort(worstFirst),
    notRun: notRun.sort((a, b) => (a.id < b.id ? -1 : 1)),
    skipped: evals.results.problems.map((d) => ({
      file: d.file === undefined ? "" : result.display(d.file),
      ...(d.position && { line: d.position.line, column: d.position.column }),
      message: d.message,
    })),
  };
}
