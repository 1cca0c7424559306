/**
 * Where a skill and its files are addressed, as the MCP skills extension names them:
 * `skill://<name>/SKILL.md` for the skill, `skill://<name>/<path>` for each file of its folder.
 * One place for the scheme, so the extension's resources, the catalog tools and the CLI agree.
 */
export const SKILL_SCHEME = "skill://";
export const SKILL_MD = "SKILL.md";

/** `path` is relative to the skill folder, `/`-separated; each segment is percent-encoded as a URI needs. */
export function skillUri(name: string, path: string = SKILL_MD): string {
  return `${SKILL_SCHEME}${name}/${path.split("/").map(encodeURIComponent).join("/")}`;
}
