/**
 * Where `skill-central eval` writes its runs (docs/eval.md): `eval: { workspace: ./eval-workspace }`
 * in the project's or the user's config, a path relative to that config file's folder. The
 * project's file wins over the user's; `eval --workspace` wins over both. The results are the
 * team's own files, so a project may choose where they go.
 */
import type { ReportProblem } from "./config-problem.ts";
import { NON_BLANK, readBlock } from "./config-schema.ts";
import { type MergeRules, mergeSettings } from "./merge-settings.ts";

const HINT = "eval: { workspace: ./eval-workspace }";

/** `eval:` in a config file. */
export const EvalBlock = {
  $id: "eval",
  type: "object",
  additionalProperties: false,
  properties: {
    workspace: { ...NON_BLANK, errorMessage: "must be a path to a folder", hint: HINT },
  },
  errorMessage: "must be a mapping { workspace }",
  hint: HINT,
} as const;

export interface EvalSettings {
  /** Absolute: the folder each run's `iteration-N/` goes in. */
  workspace?: string;
}

const EVAL_RULES: MergeRules<EvalSettings> = { workspace: "later" };

/** One file's `eval:`; undefined when it is ignored (each problem reported). The path is made absolute as the file's others are. */
export function readEvalSettings(
  value: unknown,
  resolvePath: (path: string) => string,
  report: ReportProblem,
): EvalSettings | undefined {
  const block = readBlock(EvalBlock, value, report, { key: "eval" });
  if (block === undefined) return undefined;
  return block.workspace === undefined ? {} : { workspace: resolvePath(block.workspace.trim()) };
}

/** The user's keys, then the project's. */
export function mergeEvalSettings(...layers: readonly (EvalSettings | undefined)[]): EvalSettings {
  return mergeSettings(EVAL_RULES, {}, layers);
}
