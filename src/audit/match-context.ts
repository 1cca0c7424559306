/**
 * What a rule's check sees and answers (rules.ts), in a module of its own: the modules that hold
 * a class's named parts and checks (code-execution.ts, hidden-text.ts) are imported by rules.ts,
 * and take these types from here rather than from rules.ts, so no import goes both ways.
 */

export type Severity = "high" | "medium" | "low";

/** What a matcher sees beside its match, for the rules that judge context. */
export interface MatchContext {
  text: string;
  /** The match's start and end in `text` (UTF-16 units). */
  start: number;
  end: number;
  /** The file's path in its skill, `/`-separated. */
  path: string;
}
