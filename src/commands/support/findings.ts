/** The CLI's one severity model, shared by `validate` and `doctor` so they cannot disagree about a project. */
import { dirname, join } from "node:path";
import type { Diagnostic } from "../../diagnostics.ts";
import { unaskableRequired } from "../../skill/form-fields.ts";
import { runExamples, type ExampleResult } from "../../examples/run.ts";
import { locatorsOf, type LoadResult } from "../../load/load-skills.ts";
import type { SkillRecord } from "../../load/record.ts";
import { leftOutOf } from "../../registry/describe.ts";
import type { Candidate, Registry } from "../../registry/registry.ts";
import type { Locator } from "../../storage/parse-document.ts";
import { exampleDiagnostic } from "../../cli-output/example-report.ts";
import { type ProjectCheckOptions, projectFindings } from "./project-findings.ts";
import type { Silenced } from "./ownership.ts";

/** What a check covers: the load's records and general findings, and the candidates whose examples run. */
export interface CheckInput {
  records: readonly SkillRecord[];
  /** Findings not about one file's content: config, layers, resolution. */
  general: readonly Diagnostic[];
  registry: Registry;
  /** Every candidate whose examples run: all that loaded, served or not. */
  candidates: readonly Candidate[];
  locate: (path: string) => Locator | undefined;
}

/** Everything the server would load, through its own pipeline: the records say it all, and the whole-project findings. */
export async function projectCheck(loaded: LoadResult, options: ProjectCheckOptions = {}): Promise<CheckInput> {
  const candidates = loaded.registry.resolutions().flatMap((r) => r.chain.map((p) => p.candidate));
  return {
    records: loaded.records,
    general: [...loaded.diagnostics, ...(await projectFindings(loaded, options))],
    registry: loaded.registry,
    candidates,
    locate: locatorsOf(loaded),
  };
}

export interface Findings {
  /** Every finding, sorted by file and position: what `validate` prints, and `doctor` starts from. */
  problems: Diagnostic[];
  examples: ExampleResult[];
}

export function byPlace(a: Diagnostic, b: Diagnostic): number {
  const fa = a.file ?? "";
  const fb = b.file ?? "";
  if (fa !== fb) return fa < fb ? -1 : 1;
  return (a.position?.line ?? 0) - (b.position?.line ?? 0) || (a.position?.column ?? 0) - (b.position?.column ?? 0);
}

/**
 * The one severity model of the CLI, shared by `validate` and `doctor` so that they cannot
 * disagree: every finding of the load (with the severity the load gave it: an `error` is what
 * stops a skill or a setting from being used), plus each failed inline example as an error.
 * `doctor` adds the git layers' state, never errors, after these.
 */
export async function checkFindings(input: CheckInput): Promise<Findings> {
  const examples = await runExamples(input.registry, input.candidates, { locate: input.locate });
  const problems = [
    ...input.general,
    ...input.records.flatMap((r) => r.diagnostics.map(promoted)),
    // A folder's walk (links left out, the file-count limit) is listed now; its files are not hashed.
    ...input.records.flatMap((r) => r.files?.walk().diagnostics ?? []),
    ...examples.filter((r) => !r.pass).map(exampleDiagnostic),
  ].sort(byPlace);
  return { problems, examples };
}

/**
 * Findings served with a warning (hosts differ) but errors to the checkers (`validate`, `doctor`):
 * a SKILL.md description over the Agent Skills limit is cut or refused by the clients that hold to
 * it (docs/catalog.md). The one place the server's severity and the checkers' part; the docs that
 * name a severity are held to this table (test/e2e/severity-agreement.test.ts).
 */
export const ERRORS_TO_CHECKERS: ReadonlySet<string> = new Set(["description-too-long"]);

function promoted(d: Diagnostic): Diagnostic {
  return ERRORS_TO_CHECKERS.has(d.code) && d.severity === "warning" ? { ...d, severity: "error" } : d;
}

export function countBySeverity(problems: readonly Diagnostic[]): { errors: number; warnings: number } {
  let errors = 0;
  let warnings = 0;
  for (const d of problems) {
    if (d.severity === "error") errors++;
    else if (d.severity === "warning") warnings++;
  }
  return { errors, warnings };
}

/** A finding as `--json` gives it, in `validate` and `doctor` alike: the path as people read it, and the rule id. */
/** One finding as `validate`, `doctor` and `lint --format json` print it. */
export interface FindingJson {
  file?: string;
  line?: number;
  column?: number;
  severity: Diagnostic["severity"];
  rule: string;
  message: string;
  hint?: string;
}

export function findingJson(d: Diagnostic, display: (path: string) => string): FindingJson {
  return {
    ...(d.file !== undefined && { file: display(d.file) }),
    ...(d.position && { line: d.position.line, column: d.position.column }),
    severity: d.severity,
    rule: d.code,
    message: d.message,
    ...(d.hint !== undefined && { hint: d.hint }),
  };
}

/** A `checks.ignore` entry as `--json` gives it, in `validate` and `doctor` alike: what it silences, why, and how many findings. */
export function silencedJson(s: Silenced, display: (path: string) => string) {
  const { entry } = s;
  return {
    rule: entry.rule,
    ...(entry.skill !== undefined ? { skill: entry.skill } : { layer: entry.layer }),
    reason: entry.reason,
    file: display(entry.file),
    ...(entry.position && { line: entry.position.line, column: entry.position.column }),
    silenced: s.count,
  };
}

/** Each hidden name an Agent Skills folder leaves out of its skill, named so that nothing goes missing unseen. */
export function leftOutNotes(record: SkillRecord): Diagnostic[] {
  const skill = record.skill;
  if (!skill) return [];
  const dir = dirname(record.path);
  return leftOutOf(record).map((name) => ({
    severity: "note" as const,
    code: "left-out-of-skill",
    file: join(dir, name),
    message: `left out of skill "${skill.id}": hidden names (starting with ".") are never part of a skill`,
    hint: "rename it without the leading dot if hosts need it",
  }));
}

/** Required tool arguments no form can ask for (docs/protocol.md): a client that leaves one out can only get the error. */
export function unaskableWarnings(record: SkillRecord): Diagnostic[] {
  const skill = record.skill;
  if (skill === undefined) return [];
  return unaskableRequired(skill).map((name) => {
    const position = record.locate?.(["inputSchema", "properties", name]);
    return {
      severity: "warning" as const,
      code: "required-not-askable",
      file: record.path,
      ...(position && { position }),
      message: `required argument "${name}" of "${skill.id}" cannot be asked for in a form (it is not a string, number, integer, boolean or choice): a client that leaves it out gets an error`,
      hint: "make it optional, or a field a form can hold",
    };
  });
}
