/**
 * The `$` placeholders Claude Code substitutes in a SKILL.md body, in one place so rendering
 * (invoke/skill-md-body.ts) and conversion (skill/convert.ts) read a body alike. Groups:
 * 1 `$ARGUMENTS[N]`'s N, 2 `$N`'s N, 3 `$name`'s name; a match with none is `$ARGUMENTS`.
 * `$N` is not a placeholder where a digit, `.` or `,` follows: `$10.00`, `$5.00` and `$1,000` are
 * prices (so is `$5.` ending a sentence; write `$0` before a space or `$ARGUMENTS[0]` instead).
 */
const SOURCE = String.raw`\$ARGUMENTS\[(\d+)\]|\$ARGUMENTS(?![A-Za-z0-9_[])|\$(\d+)(?![\d.,])|\$([A-Za-z_][A-Za-z0-9_-]*)`;

export const PLACEHOLDER = new RegExp(SOURCE, "g");
export const SKILL_DIR_PLACEHOLDER = "${CLAUDE_SKILL_DIR}";
/** The placeholders and `${CLAUDE_SKILL_DIR}` (a match equal to SKILL_DIR_PLACEHOLDER). */
export const PLACEHOLDER_OR_SKILL_DIR = new RegExp(`${SOURCE}|\\$\\{CLAUDE_SKILL_DIR\\}`, "g");
