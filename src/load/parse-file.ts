import type { Diagnostic } from "../diagnostics.ts";
import type { Skill, SkillContent } from "../skill/skill.ts";
import { parseYamlSkill } from "../skill/yaml-skill.ts";
import { parseYamlDocument, type Locator } from "../storage/parse-document.ts";
import { readSkillFile } from "../storage/read.ts";
import type { FileStamp } from "../storage/stamp.ts";

/** One skill file, read and judged: a skill and its content when it can be served, and every finding. */
export interface FileParse {
  stamp?: FileStamp;
  skill?: Skill;
  content?: SkillContent;
  diagnostics: Diagnostic[];
  locate?: Locator;
}

function crashed(file: string, error: unknown): Diagnostic {
  const deep = error instanceof RangeError && /call stack/i.test(error.message);
  return {
    severity: "error",
    code: deep ? "too-deep" : "parse-failed",
    file,
    message: deep ? "the file is nested too deeply to check" : `the file could not be checked: ${error instanceof Error ? error.message : String(error)}`,
    hint: deep ? "flatten it (nesting this deep is almost certainly a mistake)" : undefined,
  };
}

/**
 * The loader's steps for one file: read → YAML/JSON → skill. Never throws: whatever goes wrong
 * with one file (including a stack overflow on a hostile document) is that file's diagnostic,
 * and the load goes on with the next.
 */
export function parseSkillFile(file: string, options: { keepLocator?: boolean } = {}): FileParse {
  const read = readSkillFile(file);
  if (!read.ok) return { diagnostics: [read.diagnostic] };
  try {
    const parsed = parseYamlDocument(read.source);
    if (!parsed.ok) return { stamp: read.stamp, diagnostics: [parsed.diagnostic] };
    const { locate } = parsed.doc;
    const result = parseYamlSkill(parsed.doc.data, parsed.doc);
    return {
      stamp: read.stamp,
      ...(result.skill && { skill: result.skill, content: result.content }),
      diagnostics: result.diagnostics.map((d) => ({ ...d, file })),
      ...(options.keepLocator && { locate }),
    };
  } catch (error) {
    return { stamp: read.stamp, diagnostics: [crashed(file, error)] };
  }
}
