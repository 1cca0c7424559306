/**
 * The config file's own settings, each a top-level key: `builtin` (serve the built-in skills),
 * `pageSize` (items per list page) and `enable` (opt-in skills switched on). The file's other
 * keys are blocks, each declared and read by its own module.
 */
import type { ReportProblem } from "./config-problem.ts";
import { readBlock } from "./config-schema.ts";

const SKILL_ID = { type: "string", pattern: "\\S", errorMessage: "must be a skill id" } as const;

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

export interface FileSettings {
  builtin?: boolean;
  pageSize?: number;
  /** Ids of opt-in skills (`enabled: false`) switched on, trimmed, each once. */
  enable?: string[];
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
