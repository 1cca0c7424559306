/**
 * Where `skill-central eval` keeps its runs and the board reads them (docs/eval.md): `eval:
 * { workspace }` in the user's or the project's config, a path relative to that file's folder;
 * the project's wins. Without it, `eval-workspace/` in the project root. One resolution shared
 * by the command that writes results and the board that shows them, so they never disagree.
 */
import { join } from "node:path";
import type { ReportProblem } from "./config-problem.ts";
import { NON_BLANK, readBlock } from "./config-schema.ts";
import { type MergeRules, mergeSettings } from "./merge-settings.ts";

/** The workspace's folder name in the project root when no config names one. */
export const DEFAULT_EVAL_WORKSPACE = "eval-workspace";

const HINT = "eval: { workspace: ./eval-workspace }: where eval writes iteration-N/ and the board reads it";

/** `eval:` in a config file: a mapping `{ workspace }`. */
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
  /** The workspace folder, absolute (made so against the config file's folder). */
  workspace?: string;
}

const EVAL_RULES: MergeRules<EvalSettings> = { workspace: "later" };

/** One file's `eval:`; undefined when it is ignored (each problem reported). */
export function readEvalSettings(
  value: unknown,
  resolvePath: (path: string) => string,
  report: ReportProblem,
): EvalSettings | undefined {
  const block = readBlock(EvalBlock, value, report, { key: "eval" });
  if (block === undefined) return undefined;
  return block.workspace === undefined ? {} : { workspace: resolvePath(block.workspace.trim()) };
}

/** The user's keys, then the project's over them. */
export function mergeEvalSettings(user: EvalSettings | undefined, project: EvalSettings | undefined): EvalSettings {
  return mergeSettings(EVAL_RULES, {}, [user], { settings: project });
}

/**
 * The workspace in effect: `eval.workspace` when a config sets it (`configured`), else
 * `eval-workspace/` in `projectRoot` (the folder holding skill-central.yaml, the current one).
 */
export function evalWorkspace(
  settings: EvalSettings | undefined,
  projectRoot: string,
): { dir: string; configured: boolean } {
  const configured = settings?.workspace;
  return configured !== undefined
    ? { dir: configured, configured: true }
    : { dir: join(projectRoot, DEFAULT_EVAL_WORKSPACE), configured: false };
}
