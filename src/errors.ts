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
  | "content-unavailable";

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
