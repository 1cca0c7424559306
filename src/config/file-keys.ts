/**
 * The config file's own settings, each a top-level key: `builtin` (serve the built-in skills),
 * `pageSize` (items per list page) and `enable` (opt-in skills switched on). The file's other
 * keys are blocks, each declared and read by its own module.
 */
import type { ReportProblem } from "./config-problem.ts";
import { type BlockOf, NON_BLANK, readBlock } from "./config-schema.ts";
import { type MergeRules, mergeSettings } from "./merge-settings.ts";

const SKILL_ID = { ...NON_BLANK, errorMessage: "must be a skill id" } as const;

export const FileKeys = {
  $id: "file",
  type: "object",
  properties: {
    builtin: { type: "boolean", errorMessage: "must be true or false", hint: "write builtin: true or builtin: false" },
    pageSize: {
      type: "integer",
      minimum: 1,
      errorMessage: "must be a positive whole number",
      hint: "e.g. pageSize: 50",
    },
    enable: {
      // A lone id is taken as a list of one.
      anyOf: [{ type: "null" }, SKILL_ID, { type: "array", items: SKILL_ID }],
      errorMessage: "must be a list of skill ids",
      hint: "e.g. enable: [deploy-preview, db-migrate]",
    },
  },
} as const;

/** The file's own keys as read: `enable` a list of ids of opt-in skills switched on, trimmed, each once. */
export type FileSettings = Omit<BlockOf<typeof FileKeys>, "enable"> & { enable?: readonly string[] };

/** `builtin` and `pageSize`: the later file's; `enable`: every file's ids. */
const FILE_RULES: MergeRules<FileSettings> = { builtin: "later", pageSize: "later", enable: "joined" };

/** The user's file keys, then the project's; the built-in layer is on unless a file turns it off. */
export function mergeFileSettings(
  user: FileSettings | undefined,
  project: FileSettings | undefined,
): FileSettings & { builtin: boolean; enable: readonly string[] } {
  const { builtin = true, enable = [], ...rest } = mergeSettings(FILE_RULES, {}, [user], { settings: project });
  return { ...rest, builtin, enable };
}

/** `builtin`, `pageSize` or `enable` as the file says it; `{}` when the value is reported and left out. */
export function readFileKey(
  key: keyof typeof FileKeys.properties,
  value: unknown,
  report: ReportProblem,
): FileSettings {
  const read = readBlock(FileKeys, { [key]: value }, report);
  const settings: FileSettings = {};
  if (read?.builtin !== undefined) settings.builtin = read.builtin;
  if (read?.pageSize !== undefined) settings.pageSize = read.pageSize;
  if (read !== undefined && "enable" in read) {
    const ids = read.enable === null || read.enable === undefined ? [] : [read.enable].flat();
    settings.enable = [...new Set(ids.map((id) => id.trim()))];
  }
  return settings;
}
