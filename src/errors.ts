/**
 * The one error class of the library. `code` is ours (stable, documented); adapters map it:
 * the MCP layer to a JSON-RPC code, the CLI to an exit status.
 */
export type ErrorCode =
  | "unknown-prompt"
  | "unknown-tool"
  | "unknown-skill"
  | "missing-argument"
  | "invalid-arguments"
  | "invalid-params"
  | "no-skills-for-tags"
  | "tags-required"
  | "render-failed"
  | "content-unavailable"
  | "limit-exceeded";

/** Longest stretch of a caller's own input quoted back in a message. */
export const MAX_QUOTED_CHARS = 200;

/**
 * A caller's input as a message quotes it: at most `MAX_QUOTED_CHARS`, then an ellipsis with
 * the full length, so an error reply never grows with the request that caused it.
 */
export function quoted(text: string): string {
  return text.length <= MAX_QUOTED_CHARS ? text : `${text.slice(0, MAX_QUOTED_CHARS)}… (${text.length} characters)`;
}

export class SkillCentralError extends Error {
  override readonly name = "SkillCentralError";
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Human-readable problems, one per line, e.g. each failed argument rule. */
    readonly problems: readonly string[] = [message],
  ) {
    super(message);
  }
}
