/** The loader's steps for one Agent Skills folder: its `SKILL.md` as a skill, and its examples file beside it. */
import { basename, dirname, sep } from "node:path";
import type { Diagnostic, SourcePosition } from "../diagnostics.ts";
import { readExamples } from "../skill/examples.ts";
import { Findings, type Path, type SourceLocators } from "../skill/findings.ts";
import { isPlainObject } from "../skill/json-schema.ts";
import type { FileVersion, SkillExample } from "../skill/skill.ts";
import { quoteUnquotedColons, splitFrontmatter, type Split } from "../skill/skill-md/frontmatter.ts";
import { parseSkillMd } from "../skill/skill-md/parse-skill-md.ts";
import { nestingDepth } from "../storage/depth.ts";
import { skillFolderAt, type FolderFile, type FoundFolder } from "../storage/discover.ts";
import { examplesFilesIn } from "../storage/served-files.ts";
import { parseYamlDocument, type Locator, type ParseResult } from "../storage/parse-document.ts";
import { readSkillFile } from "../storage/read.ts";
import { MAX_DOCUMENT_DEPTH, parseSkillFile, type FileParse } from "./parse-file.ts";

/** The warning of a folder with both examples files (a skill parsed with it is never reused as it is). */
export const TWO_EXAMPLES_FILES = "two-examples-files";

/**
 * The folder's examples file: `examples.yaml`, else `examples.yml`, beside SKILL.md. It is for
 * `skill-central test` only, so it is not one of the skill's published files.
 */
function examplesFileOf(found: FoundFolder, diagnostics: Diagnostic[]): FolderFile | undefined {
  const [file, other] = examplesFilesIn(found.topFiles).map((name) => ({ rel: name, abs: found.dir + sep + name }));
  if (file && other) {
    diagnostics.push({
      severity: "warning",
      code: TWO_EXAMPLES_FILES,
      file: other.abs,
      message: `not read: ${file.rel} holds the examples, so ${other.rel} is served as a file of the skill`,
      hint: `move its examples into ${file.rel}`,
    });
  }
  return file;
}

/** Locators of a document that starts `lines` lines into its file. */
function shifted(locators: SourceLocators, lines: number): SourceLocators & { locate: Locator } {
  const shift = (p: SourcePosition | undefined) => p && { line: p.line + lines, column: p.column };
  return {
    locate: (path, within) => shift(locators.locate(path, within)),
    locateKey: (path: Path) => shift(locators.locateKey(path)),
  };
}

/** The examples file's examples, and the version read (recorded so that editing it reloads the skill). */
function readExamplesFile(
  file: FolderFile | undefined,
  diagnostics: Diagnostic[],
): { examples: SkillExample[]; version?: FileVersion } {
  if (!file) return { examples: [] };
  const read = readSkillFile(file.abs);
  if (!read.ok) {
    diagnostics.push(read.diagnostic);
    return { examples: [] };
  }
  const version = { path: file.rel, ...read.stamp };
  const parsed = parseYamlDocument(read.source);
  if (!parsed.ok) {
    diagnostics.push(parsed.diagnostic);
    return { examples: [], version };
  }
  const f = new Findings(parsed.doc);
  const data = parsed.doc.data;
  // The file is the list itself, or a mapping with an `examples:` list.
  const examples = isPlainObject(data) ? readExamples(f, data.examples, ["examples"]) : readExamples(f, data, []);
  for (const d of f.list) diagnostics.push({ ...d, file: file.abs });
  return { examples, version };
}

/**
 * The frontmatter as a YAML document within the depth limit. A value holding an unquoted `: `
 * (which hosts write and YAML refuses) is read as if quoted, with a warning.
 */
function parseFrontmatter(file: string, split: Split & { ok: true }, diagnostics: Diagnostic[]): ParseResult {
  let parsed = parseYamlDocument({ file, text: split.yaml }, { lineBase: split.yamlLine - 1 });
  const repair = parsed.ok ? undefined : quoteUnquotedColons(split.yaml);
  if (repair) {
    const retried = parseYamlDocument({ file, text: repair.yaml }, { lineBase: split.yamlLine - 1 });
    if (retried.ok) {
      parsed = retried;
      for (const { key, line } of repair.quoted) {
        diagnostics.push({
          severity: "warning",
          code: "unquoted-colon",
          file,
          message: `the value of "${key}" holds ": ", which is not valid YAML unquoted; it is read as if quoted`,
          hint: `put it in quotes (${key}: "…"): strict hosts skip this skill`,
          position: { line: line + split.yamlLine - 1, column: key.length + 3 },
        });
      }
    }
  }
  if (!parsed.ok) {
    const d = parsed.diagnostic;
    const position = d.position && { line: d.position.line + split.yamlLine - 1, column: d.position.column };
    const message = `the frontmatter is not valid YAML: ${d.message.replace(/^invalid YAML: /, "")}`;
    return { ok: false, diagnostic: { ...d, message, ...(position && { position }) } };
  }
  if (nestingDepth(parsed.doc.data, MAX_DOCUMENT_DEPTH) > MAX_DOCUMENT_DEPTH) {
    return {
      ok: false,
      diagnostic: {
        severity: "error",
        code: "too-deep",
        file,
        message: `the frontmatter nests more than ${MAX_DOCUMENT_DEPTH} levels deep (the limit)`,
        position: { line: split.yamlLine, column: 1 },
      },
    };
  }
  return parsed;
}

/**
 * An Agent Skills folder, read and judged: its SKILL.md parsed and its examples file read. Its
 * other files are not looked at: they are listed, sized and hashed when first needed
 * (folder-files.ts). Never throws.
 */
export function parseSkillFolder(found: FoundFolder, options: { keepLocator?: boolean } = {}): FileParse {
  const file = found.skillFile;
  const diagnostics: Diagnostic[] = [];
  const read = readSkillFile(file);
  if (!read.ok) return { diagnostics: [...diagnostics, read.diagnostic] };
  try {
    const split = splitFrontmatter(read.source.text);
    if (!split.ok) {
      return {
        stamp: read.stamp,
        diagnostics: [
          ...diagnostics,
          {
            severity: "error",
            code: "frontmatter",
            file,
            message: split.message,
            hint: split.hint,
            position: { line: split.line, column: 1 },
          },
        ],
      };
    }
    const parsed = parseFrontmatter(file, split, diagnostics);
    if (!parsed.ok) return { stamp: read.stamp, diagnostics: [...diagnostics, parsed.diagnostic] };
    const locators = shifted(parsed.doc, split.yamlLine - 1);
    const examplesFile = examplesFileOf(found, diagnostics);
    const { examples, version } = readExamplesFile(examplesFile, diagnostics);
    // As in a YAML skill, a broken example stops the skill: its author meant it to be checked.
    if (diagnostics.some((d) => d.severity === "error")) return { stamp: read.stamp, diagnostics };
    const result = parseSkillMd({
      frontmatter: parsed.doc.data,
      locators,
      body: split.body,
      bodyLine: split.bodyLine,
      folderName: basename(found.dir),
      ...(version && { examplesFile: version }),
      examples,
    });
    return {
      stamp: read.stamp,
      ...(result.skill && { skill: result.skill, content: result.content }),
      diagnostics: [...diagnostics, ...result.diagnostics.map((d) => ({ ...d, file: d.file ?? file }))],
      ...(options.keepLocator && { locate: locators.locate, locateKey: locators.locateKey }),
    };
  } catch (error) {
    return {
      stamp: read.stamp,
      diagnostics: [
        ...diagnostics,
        {
          severity: "error",
          code: "parse-failed",
          file,
          message: `the skill could not be checked: ${error instanceof Error ? error.message : String(error)}`,
        },
      ],
    };
  }
}

const SKILL_MD = /[\\/](SKILL|skill)\.md$/;

/** Whether a path names an Agent Skills folder's SKILL.md (the path a folder's record has). */
export function isSkillMdPath(path: string): boolean {
  return SKILL_MD.test(path);
}

/** A skill by the path its record has: a YAML/JSON skill file, or a SKILL.md standing for its folder. */
export function parseSkillPath(path: string, options: { keepLocator?: boolean } = {}): FileParse {
  if (!isSkillMdPath(path)) return parseSkillFile(path, options);
  const folder = skillFolderAt(dirname(path));
  if (!folder)
    return {
      diagnostics: [
        {
          severity: "error",
          code: "no-skill-md",
          file: path,
          message: "no SKILL.md here any more",
          hint: "the folder's skill is withdrawn until a SKILL.md is back",
        },
      ],
    };
  return parseSkillFolder(folder, options);
}
