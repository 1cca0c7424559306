/**
 * How skills reach clients that take tools but not prompts, or that cap their tool count
 * (docs/catalog.md). Declared in a config file (`catalog`, `toolSkills`, `toolCap`) and on the
 * command line (`mcp --catalog`); the project's file wins over the user's, the flag over both.
 */

import type { ReportProblem } from "./config-problem.ts";
import { type BlockOf, readBlock } from "./config-schema.ts";
import { type MergeRules, mergeSettings } from "./merge-settings.ts";

/** `auto`: decided per client; `on`: catalog tools for every client; `off`: never. */
export const CATALOG_MODES = ["auto", "on", "off"] as const;
export type CatalogMode = (typeof CATALOG_MODES)[number];

/** `tools`: each tool skill is an MCP tool (unless a capped client's budget is exceeded); `catalog`: all go behind `run_skill_tool`. */
export const TOOL_SKILLS_MODES = ["tools", "catalog"] as const;

/** What one file's catalog keys say, as the schema has it (`catalog: true` not yet read as `on`). */
type CatalogDeclared = BlockOf<typeof CatalogKeys>;

/**
 * The catalog settings in effect: `catalog` read as `mode`; `toolCap` is the most tools this
 * server lists to a client known to cap its tool count; `tokenBudget` the most o200k tokens a
 * client may be sent to learn the catalog (instructions and lists), past which the client gets
 * the catalog instead (docs/catalog.md); undefined: a client's published default, if it has one.
 */
export type CatalogSettings = { mode: CatalogMode } & Required<Pick<CatalogDeclared, "toolSkills" | "toolCap">> &
  Pick<CatalogDeclared, "tokenBudget">;

/** Every key: the later declaration wins (user config, then project config, then the command line). */
const CATALOG_RULES: MergeRules<CatalogSettings> = {
  mode: "later",
  toolSkills: "later",
  toolCap: "later",
  tokenBudget: "later",
};

/** Cursor warns past ~40 tools in all (docs/catalog.md): the default leaves it whole to us only when nothing else is installed. */
export const DEFAULT_TOOL_CAP = 40;
/** The catalog's own tools (find_skills, load_skill, run_skill_tool) must fit under any cap. */
export const MIN_TOOL_CAP = 3;
export const MAX_TOOL_CAP = 10_000;
/** The catalog's own instructions and tools alone cost several hundred tokens: a smaller budget could never be met. */
export const MIN_TOKEN_BUDGET = 500;
export const MAX_TOKEN_BUDGET = 1_000_000;

export const DEFAULT_CATALOG_SETTINGS: CatalogSettings = Object.freeze({
  mode: "auto",
  toolSkills: "tools",
  toolCap: DEFAULT_TOOL_CAP,
});

/** The rule for `tokenBudget` in words, for the config check. */
export const TOKEN_BUDGET_RULE = `a whole number of tokens from ${MIN_TOKEN_BUDGET} to ${MAX_TOKEN_BUDGET}`;

/** The rule for `toolCap` in words, shared by the config check and the docs' examples. */
export const TOOL_CAP_RULE = `a whole number from ${MIN_TOOL_CAP} (the catalog's own tools) to ${MAX_TOOL_CAP}`;

/** The catalog's keys of a config file, each at the top level (`catalog: off`, `toolCap: 40`). */
export const CatalogKeys = {
  $id: "catalog",
  type: "object",
  properties: {
    catalog: {
      // YAML 1.1 readers (and people) write on/off as booleans.
      anyOf: [{ enum: CATALOG_MODES }, { type: "boolean" }],
      errorMessage: "must be auto, on or off",
      hint: "auto (per client, the default), on (every client) or off (none); see docs/catalog.md",
    },
    toolSkills: {
      enum: TOOL_SKILLS_MODES,
      errorMessage: `must be ${TOOL_SKILLS_MODES.join(" or ")}`,
      hint: "tools (each tool skill a tool, the default) or catalog (all behind run_skill_tool)",
    },
    toolCap: {
      type: "integer",
      minimum: MIN_TOOL_CAP,
      maximum: MAX_TOOL_CAP,
      errorMessage: `must be ${TOOL_CAP_RULE}`,
      hint: "e.g. toolCap: 40",
    },
    tokenBudget: {
      type: "integer",
      minimum: MIN_TOKEN_BUDGET,
      maximum: MAX_TOKEN_BUDGET,
      errorMessage: `must be ${TOKEN_BUDGET_RULE}`,
      hint: "e.g. tokenBudget: 4000 (see skill-central budget)",
    },
  },
} as const;

export type CatalogKey = keyof typeof CatalogKeys.properties;
export const CATALOG_KEYS = Object.keys(CatalogKeys.properties) as CatalogKey[];

/** One of the catalog's keys merged into what the file declared so far (unchanged when ignored, with the problem reported). */
export function readCatalogKey(
  key: CatalogKey,
  value: unknown,
  declared: Partial<CatalogSettings> | undefined,
  report: ReportProblem,
): Partial<CatalogSettings> | undefined {
  const read = readBlock(CatalogKeys, { [key]: value }, report);
  if (read === undefined) return declared;
  const { catalog, ...rest } = read;
  const mode = catalog === true ? "on" : catalog === false ? "off" : catalog;
  return { ...declared, ...rest, ...(mode !== undefined && { mode }) };
}

/** Later declarations win key by key: user config, then project config, then the command line. */
export function mergeCatalogSettings(...layers: readonly (Partial<CatalogSettings> | undefined)[]): CatalogSettings {
  return mergeSettings(CATALOG_RULES, DEFAULT_CATALOG_SETTINGS, layers);
}
