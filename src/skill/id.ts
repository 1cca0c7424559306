/** The skill id rule (the config's skill-name rule) and the length a tool skill's id may have to stay a tool name clients take. */
import { SKILL_NAME_PATTERN } from "../config/config-names.ts";

/** `review-pr`, `kmp-expert`: lowercase words joined by single hyphens (the config's skill-name rule). */
export const SKILL_ID_PATTERN = SKILL_NAME_PATTERN;
export const MAX_SKILL_ID_LENGTH = 64;

/** The id rule in words, shared by every skill format and by `new`. */
export const SKILL_ID_RULE = `lowercase letters and digits in words joined by single hyphens (e.g. "review-pr"), at most ${MAX_SKILL_ID_LENGTH} characters`;

export function isValidSkillId(id: string): boolean {
  return SKILL_ID_PATTERN.test(id) && id.length <= MAX_SKILL_ID_LENGTH;
}

/**
 * Clients hand a server's tools to their model as `mcp__<server>__<tool>` (Claude Code, Codex),
 * and model APIs take at most 64 characters: installed as `skill-central`, a tool skill's id has
 * this many to fit. A longer one is served through the catalog's `run_skill_tool` only.
 */
export const MAX_TOOL_ID_LENGTH = 64 - "mcp__skill-central__".length;
