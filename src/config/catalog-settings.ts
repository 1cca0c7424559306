/**
 * How skills reach clients that take tools but not prompts, or that cap their tool count
 * (docs/catalog.md). Declared in a config file (`catalog`, `toolSkills`, `toolCap`) and on the
 * command line (`mcp --catalog`); the project's file wins over the user's, the flag over both.
 */

/** `auto`: decided per client; `on`: catalog tools for every client; `off`: never. */
export type CatalogMode = "auto" | "on" | "off";
export const CATALOG_MODES: readonly CatalogMode[] = ["auto", "on", "off"];

/** `tools`: each tool skill is an MCP tool (unless a capped client's budget is exceeded); `catalog`: all go behind `run_skill_tool`. */
export type ToolSkillsMode = "tools" | "catalog";
export const TOOL_SKILLS_MODES: readonly ToolSkillsMode[] = ["tools", "catalog"];

export interface CatalogSettings {
  mode: CatalogMode;
  toolSkills: ToolSkillsMode;
  /** The most tools this server lists to a client known to cap its tool count. */
  toolCap: number;
  /**
   * The most o200k tokens a client may be sent to learn the catalog (instructions and lists);
   * past it, the client gets the catalog instead (docs/catalog.md). Undefined: a client's
   * published default, if it has one.
   */
  tokenBudget?: number;
}

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

/** What one config file said; absent keys were not set (or were invalid, and reported). */
export type DeclaredCatalogSettings = Partial<CatalogSettings>;

export function isCatalogMode(value: unknown): value is CatalogMode {
  return typeof value === "string" && (CATALOG_MODES as readonly string[]).includes(value);
}

export function isToolSkillsMode(value: unknown): value is ToolSkillsMode {
  return typeof value === "string" && (TOOL_SKILLS_MODES as readonly string[]).includes(value);
}

export function isToolCap(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) >= MIN_TOOL_CAP && (value as number) <= MAX_TOOL_CAP;
}

export function isTokenBudget(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) >= MIN_TOKEN_BUDGET && (value as number) <= MAX_TOKEN_BUDGET;
}

/** The rule for `tokenBudget` in words, for the config check. */
export const TOKEN_BUDGET_RULE = `a whole number of tokens from ${MIN_TOKEN_BUDGET} to ${MAX_TOKEN_BUDGET}`;

/** The rule for `toolCap` in words, shared by the config check and the docs' examples. */
export const TOOL_CAP_RULE = `a whole number from ${MIN_TOOL_CAP} (the catalog's own tools) to ${MAX_TOOL_CAP}`;

/** Later sources win key by key: user config, then project config, then the command line. */
export function mergeCatalogSettings(...layers: readonly (DeclaredCatalogSettings | undefined)[]): CatalogSettings {
  const merged: CatalogSettings = { ...DEFAULT_CATALOG_SETTINGS };
  for (const layer of layers) {
    if (layer?.mode !== undefined) merged.mode = layer.mode;
    if (layer?.toolSkills !== undefined) merged.toolSkills = layer.toolSkills;
    if (layer?.toolCap !== undefined) merged.toolCap = layer.toolCap;
    if (layer?.tokenBudget !== undefined) merged.tokenBudget = layer.tokenBudget;
  }
  return merged;
}
