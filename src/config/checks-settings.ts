/**
 * `checks:` in a config file (docs/cli.md#silencing-a-check): findings of `validate` and `doctor`
 * a person has looked at and decided to live with, as eslint's and biome's ignore comments do,
 * but kept in the config because a vendored skill's file is not the team's to annotate. Each
 * entry silences one rule for one skill (`skill:`) or for every skill of one layer (`layer:`), and
 * must say why: a silenced finding with no reason is a finding nobody can judge later.
 *
 * Silencing hides a finding from the checkers' output and exit status only; it never changes what
 * the server serves or refuses, so both the user's and the project's entries count (joined).
 * Security and access findings cannot be silenced here (ownership.ts refuses them, pointing at
 * `audit.allow`, which pins a reviewed skill by digest).
 */
import type { SourcePosition } from "../diagnostics.ts";
import type { ReportProblem } from "./config-problem.ts";
import { type BlockOf, NON_BLANK, readBlock } from "./config-schema.ts";
import { type MergeRules, mergeSettings } from "./merge-settings.ts";

const ENTRY_HINT = 'e.g. - { rule: body-too-long, layer: vendor, reason: "upstream keeps its long examples" }';

/** `checks:` in a config file: `{ ignore: [{ rule, skill | layer, reason }] }`. */
export const ChecksBlock = {
  $id: "checks",
  type: "object",
  additionalProperties: false,
  properties: {
    ignore: {
      type: "array",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["rule", "reason"],
        properties: {
          rule: { ...NON_BLANK, errorMessage: "must be a rule id, as `validate --json` names it", hint: ENTRY_HINT },
          skill: { ...NON_BLANK, errorMessage: "must be a skill's id", hint: ENTRY_HINT },
          layer: { ...NON_BLANK, errorMessage: "must be a layer's name", hint: ENTRY_HINT },
          reason: {
            ...NON_BLANK,
            errorMessage: "must say why the finding is silenced",
            hint: 'e.g. reason: "vendored from anthropics/skills; upstream\'s wording"',
          },
        },
        errorMessage: "must be a mapping { rule, skill or layer, reason }",
        hint: ENTRY_HINT,
        noun: "entry",
      },
      errorMessage: "must be a list of { rule, skill or layer, reason }",
      hint: ENTRY_HINT,
    },
  },
  errorMessage: "must be a mapping { ignore }",
  hint: `e.g. checks: { ignore: [{ rule: vague-description, skill: greet, reason: "…" }] }`,
} as const;

type DeclaredEntry = BlockOf<typeof ChecksBlock.properties.ignore.items>;

/** One `checks.ignore` entry as read: one rule, for one skill or one layer's skills, and where it was written. */
export type CheckIgnore = { rule: string; reason: string; file: string; position?: SourcePosition } & (
  | { skill: string; layer?: undefined }
  | { layer: string; skill?: undefined }
);

export interface ChecksSettings {
  ignore: readonly CheckIgnore[];
}

export const DEFAULT_CHECKS_SETTINGS: ChecksSettings = Object.freeze({ ignore: [] });

const CHECKS_RULES: MergeRules<ChecksSettings> = { ignore: "joined" };

/**
 * One file's `checks:` value. An entry naming both a skill and a layer, or neither, is reported
 * at it and left out: it would silence more, or less, than its author could tell.
 */
export function readChecksSettings(
  value: unknown,
  file: string,
  locate: (path: readonly (string | number)[]) => SourcePosition | undefined,
  report: ReportProblem,
): Partial<ChecksSettings> | undefined {
  const block = readBlock(ChecksBlock, value, report, { key: "checks" });
  if (block?.ignore === undefined) return block === undefined ? undefined : {};
  const entries = Array.isArray(value) ? [] : ((value as { ignore?: unknown[] }).ignore ?? []);
  const ignore = block.ignore.flatMap((entry: DeclaredEntry): CheckIgnore[] => {
    const index = entries.indexOf(entry);
    const path = index < 0 ? ["ignore"] : ["ignore", index];
    if ((entry.skill === undefined) === (entry.layer === undefined)) {
      report({
        path,
        message: `"checks.ignore" entry ${index + 1} must name exactly one of skill or layer; ignored`,
        hint: ENTRY_HINT,
      });
      return [];
    }
    const position = locate(["checks", ...path]);
    const where = { file, ...(position && { position }) };
    const rule = entry.rule.trim();
    const reason = entry.reason.trim();
    return entry.skill !== undefined
      ? [{ rule, skill: entry.skill.trim(), reason, ...where }]
      : [{ rule, layer: entry.layer!.trim(), reason, ...where }];
  });
  return { ignore };
}

/** The user's entries, then the project's: a silenced finding changes only what the checkers print. */
export function mergeChecksSettings(
  user: Partial<ChecksSettings> | undefined,
  project: Partial<ChecksSettings> | undefined,
): ChecksSettings {
  return mergeSettings(CHECKS_RULES, DEFAULT_CHECKS_SETTINGS, [user], { settings: project });
}
