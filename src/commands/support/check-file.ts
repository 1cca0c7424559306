import { relative } from "node:path";
import type { Diagnostic } from "../../diagnostics.ts";
import type { Skill } from "../../skill/skill.ts";
import { parseSkill } from "../../skill/parse-skill.ts";
import { parseYamlDocument, type Locator } from "../../storage/parse-document.ts";
import { readSkillFile } from "../../storage/read.ts";

/** Paths inside the project are shown relative to it, as the loader shows them. */
export function displayPath(file: string, cwd: string): string {
  const rel = relative(cwd, file);
  return rel.startsWith("..") || rel === "" ? file : rel;
}

export interface FileCheck {
  /** As shown in messages (relative to the project when inside it). */
  source: string;
  /** Every problem on its own line, each with its position: what `validate` prints. */
  diagnostics: Diagnostic[];
  skill?: Skill;
  locate?: Locator;
}

/**
 * One skill file through the loader's own steps (read, YAML/JSON parse, skill parse), keeping
 * every problem separate: the server logs one line per broken file, `validate` one per problem.
 */
export async function checkSkillFile(file: string, cwd: string): Promise<FileCheck> {
  const source = displayPath(file, cwd);
  const read = await readSkillFile(file);
  if (!read.ok) return { source, diagnostics: [{ ...read.diagnostic, file: source }] };
  const parsed = parseYamlDocument({ file: source, text: read.source.text });
  if (!parsed.ok) return { source, diagnostics: [{ ...parsed.diagnostic, file: source }] };
  const { locate } = parsed.doc;
  const result = parseSkill(parsed.doc.data, parsed.doc);
  if (!result.ok) return { source, diagnostics: result.errors.map((d) => ({ ...d, file: source })), locate };
  return { source, diagnostics: result.warnings.map((d) => ({ ...d, file: source })), skill: result.skill, locate };
}
