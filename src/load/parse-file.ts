/** The loader's steps for one skill file (read → YAML/JSON → skill), never throwing: what goes wrong is the file's diagnostic. */
import type { Diagnostic } from "../diagnostics.ts";
import type { Skill, SkillContent } from "../skill/skill.ts";
import { parseYamlSkill } from "../skill/yaml-skill.ts";
import { parseYamlDocument, type KeyLocator, type Locator } from "../storage/parse-document.ts";
import { nestingDepth } from "../storage/depth.ts";
import { readSkillFile } from "../storage/read.ts";
import type { FileStamp } from "../storage/stamp.ts";

/**
 * A skill file is a handful of fields; its inputSchema nests a few levels. Anything past this
 * is a mistake or an attack, and walking it (proofs, TypeBox, serialising) would cost dearly.
 */
export const MAX_DOCUMENT_DEPTH = 64;

/** One skill file, read and judged: a skill and its content when it can be served, and every finding. */
export interface FileParse {
  stamp?: FileStamp;
  skill?: Skill;
  content?: SkillContent;
  diagnostics: Diagnostic[];
  locate?: Locator;
  /** Where a field's key is written (kept with `locate`, for findings about a field itself). */
  locateKey?: KeyLocator;
}

function crashed(file: string, error: unknown): Diagnostic {
  const deep = error instanceof RangeError && /call stack/i.test(error.message);
  return {
    severity: "error",
    code: deep ? "too-deep" : "parse-failed",
    file,
    message: deep
      ? "the file is nested too deeply to check"
      : `the file could not be checked: ${error instanceof Error ? error.message : String(error)}`,
    hint: deep ? "flatten it (nesting this deep is almost certainly a mistake)" : undefined,
  };
}

function topLevelKeyPosition(text: string, key: string): { line: number; column: number } {
  const at = text.startsWith(`${key}:`) ? 0 : text.indexOf(`\n${key}:`) + 1;
  return { line: at <= 0 ? 1 : text.slice(0, at).split("\n").length, column: 1 };
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
    const depth = nestingDepth(parsed.doc.data, MAX_DOCUMENT_DEPTH);
    if (depth > MAX_DOCUMENT_DEPTH) {
      // Point at the top-level field that holds the deep part.
      const data = parsed.doc.data as Record<string, unknown>;
      const field = Object.keys(data).find((key) => nestingDepth(data[key], MAX_DOCUMENT_DEPTH) >= MAX_DOCUMENT_DEPTH);
      // Found by a plain text search: the precise YAML parse behind locators is costly on such input.
      const position = field === undefined ? { line: 1, column: 1 } : topLevelKeyPosition(read.source.text, field);
      const where = field === undefined ? "the file" : `"${field}"`;
      const diagnostic: Diagnostic = {
        severity: "error",
        code: "too-deep",
        file,
        message: `${where} nests more than ${MAX_DOCUMENT_DEPTH} levels deep (the limit)`,
        hint: "flatten it: no skill needs structures this deep",
        position,
      };
      return { stamp: read.stamp, diagnostics: [diagnostic] };
    }
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
