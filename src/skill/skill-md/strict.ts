/** `validate --strict`: the agentskills.io specification applied to the letter, for authors who publish to other tools. */
import type { Diagnostic, SourcePosition } from "../../diagnostics.ts";
import { isPlainObject } from "../json-schema.ts";
import { lineCount } from "../line-count.ts";
import { SKILL_MD_LIMITS, SPEC_FIELDS } from "./parse-skill-md.ts";

type Locate = (path: readonly (string | number)[]) => SourcePosition | undefined;

/**
 * The agentskills.io specification applied exactly, for authors who publish a skill to other
 * tools (`validate --strict`): only its six fields, its limits as errors, `metadata` a mapping of
 * text to text, and the folder named as the skill. Served skills are held to the lenient rules
 * of parse-skill-md.ts instead.
 */
export function agentSkillsSpecFindings(input: {
  frontmatter: Record<string, unknown>;
  folderName: string;
  body: string;
  locate?: Locate;
  locateKey?: Locate;
}): Diagnostic[] {
  const { frontmatter: fm } = input;
  const at = (path: readonly (string | number)[]) => input.locate?.(path);
  const keyAt = (path: readonly (string | number)[]) => input.locateKey?.(path) ?? at(path);
  const out: Diagnostic[] = [];
  const error = (code: string, message: string, hint: string, position: SourcePosition | undefined) =>
    out.push({ severity: "error", code, message, hint, ...(position && { position }) });
  for (const key of Object.keys(fm)) {
    if (!(SPEC_FIELDS as readonly string[]).includes(key)) {
      error(
        "spec-field",
        `"${key}" is not a field of the Agent Skills specification`,
        `other tools may refuse it; the specification has ${SPEC_FIELDS.join(", ")}`,
        keyAt([key]),
      );
    }
  }
  if (typeof fm.name === "string" && fm.name !== input.folderName) {
    error(
      "spec-name-folder",
      `name "${fm.name}" must equal its folder's name "${input.folderName}"`,
      `rename the folder to "${fm.name}"`,
      at(["name"]),
    );
  }
  if (typeof fm.description === "string" && fm.description.length > SKILL_MD_LIMITS.description) {
    error(
      "spec-description-length",
      `"description" is ${fm.description.length} characters; the specification allows ${SKILL_MD_LIMITS.description}`,
      "shorten it",
      at(["description"]),
    );
  }
  if (
    fm.compatibility !== undefined &&
    (typeof fm.compatibility !== "string" || fm.compatibility.length > SKILL_MD_LIMITS.compatibility)
  ) {
    error(
      "spec-compatibility",
      `"compatibility" must be text of at most ${SKILL_MD_LIMITS.compatibility} characters`,
      "shorten it",
      at(["compatibility"]),
    );
  }
  if (fm.license !== undefined && typeof fm.license !== "string")
    error("spec-license", '"license" must be text', "e.g. `license: MIT`", at(["license"]));
  if (fm["allowed-tools"] !== undefined && typeof fm["allowed-tools"] !== "string") {
    error(
      "spec-allowed-tools",
      '"allowed-tools" must be one space-separated string',
      "e.g. `allowed-tools: Bash(git:*) Read`",
      at(["allowed-tools"]),
    );
  }
  if (
    fm.metadata !== undefined &&
    (!isPlainObject(fm.metadata) || !Object.values(fm.metadata).every((v) => typeof v === "string"))
  ) {
    error(
      "spec-metadata",
      '"metadata" must map names to text values',
      'quote values YAML would read otherwise, e.g. version: "1.0"',
      at(["metadata"]),
    );
  }
  const lines = lineCount(input.body);
  if (lines > SKILL_MD_LIMITS.bodyLines) {
    error(
      "spec-body-length",
      `the body is ${lines} lines; the specification recommends at most ${SKILL_MD_LIMITS.bodyLines}`,
      "move detail into references/ files",
      undefined,
    );
  }
  return out;
}

/**
 * The served rule (parse-skill-md.ts) each strict rule restates by the specification's letter:
 * the same problem, once said as a warning (or, for the description, the checkers' error) and once
 * as the specification's error. `--strict` shows the specification's, so each problem is one line.
 */
const RESTATES: Readonly<Record<string, string>> = {
  "spec-field": "unknown-field",
  "spec-name-folder": "name-folder-mismatch",
  "spec-description-length": "description-too-long",
  "spec-metadata": "field-type",
  "spec-body-length": "body-too-long",
};

const samePlace = (a: SourcePosition | undefined, b: SourcePosition | undefined) =>
  a === undefined || b === undefined || (a.line === b.line && a.column === b.column);

/**
 * `findings` with `strict`'s added, each strict finding in place of the served one that says the
 * same of the same file and place; a strict finding with no place (the body's length) takes the
 * served one's.
 */
export function withStrictFindings(findings: readonly Diagnostic[], strict: readonly Diagnostic[]): Diagnostic[] {
  const dropped = new Set<Diagnostic>();
  const added = strict.map((s) => {
    const restated = findings.find(
      (d) => !dropped.has(d) && d.code === RESTATES[s.code] && d.file === s.file && samePlace(d.position, s.position),
    );
    if (!restated) return s;
    dropped.add(restated);
    return s.position === undefined && restated.position ? { ...s, position: restated.position } : s;
  });
  return [...findings.filter((d) => !dropped.has(d)), ...added];
}
