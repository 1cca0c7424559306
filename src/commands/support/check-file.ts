import { checkSource, type FileCheck as SourceCheck } from "../../load/parse-file.ts";
import { displayPath } from "../../storage/display-path.ts";
import { readSkillFile } from "../../storage/read.ts";

export interface FileCheck extends SourceCheck {
  /** As shown in messages (relative to the project when inside it). */
  source: string;
}

/**
 * One skill file through the loader's own steps (read, YAML/JSON parse, skill parse), keeping
 * every problem separate: the server logs one line per broken file, `validate` one per problem.
 */
export async function checkSkillFile(file: string, cwd: string): Promise<FileCheck> {
  const source = displayPath(file, cwd);
  return { source, ...checkSource(await readSkillFile(file), source) };
}
