/** `review-pr`, `kmp-expert`: lowercase words joined by single hyphens. */
export const SKILL_ID_PATTERN = /^[a-z0-9]+(-[a-z0-9]+)*$/;
export const MAX_SKILL_ID_LENGTH = 64;

/** The id rule, shared by every skill format and by `new`: undefined when `id` is valid, else why not. */
export function skillIdProblem(id: string): string | undefined {
  if (SKILL_ID_PATTERN.test(id) && id.length <= MAX_SKILL_ID_LENGTH) return undefined;
  return `"${id}" is not a valid id: lowercase letters and digits in words joined by single hyphens (e.g. "review-pr"), at most ${MAX_SKILL_ID_LENGTH} characters`;
}
