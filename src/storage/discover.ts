import { Glob } from "bun";
import { join, sep } from "node:path";

/** Skill files: YAML or JSON, at any depth. */
const SKILL_FILES = new Glob("**/*.{yaml,yml,json}");

/** `_template.yaml`, `.draft.yaml` and anything inside `_drafts/` or `.git/` are not skills. */
function isIgnored(relativePath: string): boolean {
  return relativePath.split(/[\\/]/).some((part) => part.startsWith("_") || part.startsWith("."));
}

/**
 * Absolute paths of the skill files under `dir`, sorted so that nothing downstream depends on
 * the order the file system happens to return.
 */
export async function discoverSkillFiles(dir: string): Promise<string[]> {
  const found: string[] = [];
  for await (const rel of SKILL_FILES.scan({ cwd: dir, onlyFiles: true, dot: false, followSymlinks: true })) {
    if (!isIgnored(rel)) found.push(join(dir, rel.split("/").join(sep)));
  }
  return found.sort();
}
