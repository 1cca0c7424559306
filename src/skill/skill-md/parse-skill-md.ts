/**
 * An Agent Skills folder's `SKILL.md` read as a skill, by the lenient rules served skills are held
 * to: the specification's fields, the hosts' additions kept, its limits as warnings.
 */
import type { Diagnostic, SourcePosition } from "../../diagnostics.ts";
import { Findings, kindOf, type SourceLocators } from "../findings.ts";
import { bodyOutline, headingsField } from "../headings.ts";
import { isValidSkillId, MAX_SKILL_ID_LENGTH } from "../id.ts";
import { isPlainObject } from "../json-schema.ts";
import {
  servedDescription,
  type FileVersion,
  type Skill,
  type SkillArgument,
  type SkillContent,
  type SkillExample,
} from "../skill.ts";
import { normaliseTags } from "../tags.ts";
import { closest } from "../../suggest.ts";

/** The agentskills.io specification's fields. */
export const SPEC_FIELDS = ["name", "description", "license", "compatibility", "metadata", "allowed-tools"] as const;
/** Claude Code's additions (and ones other hosts read): accepted silently, kept in the frontmatter. */
export const HOST_FIELDS = [
  "when_to_use",
  "argument-hint",
  "arguments",
  "disable-model-invocation",
  "user-invocable",
  "disallowed-tools",
  "model",
  "effort",
  "context",
  "agent",
  "hooks",
  "paths",
  "shell",
  "tags",
  "version",
] as const;
const KNOWN_FIELDS: readonly string[] = [...SPEC_FIELDS, ...HOST_FIELDS];

/** The specification's limits; over them a skill is still served (with a warning) unless `--strict`. */
export const SKILL_MD_LIMITS = { description: 1024, compatibility: 500, bodyLines: 500 } as const;

const ARGUMENT_NAME = /^[A-Za-z_][A-Za-z0-9_-]*$/;
/** `` !`command` ``: Claude Code runs it before showing the body. This server never does. */
const SHELL_EXPANSION = /!`[^`\n]+`/y;

export interface SkillMdInput {
  /** The frontmatter as data (already parsed) and where its fields are in the file. */
  frontmatter: unknown;
  locators: SourceLocators;
  body: string;
  /** 1-based line where the body starts in SKILL.md, for positions inside it. */
  bodyLine: number;
  /** The folder's own name, which should equal `name`. */
  folderName: string;
  examplesFile?: FileVersion;
  examples: readonly SkillExample[];
}

export interface SkillMdParse {
  skill?: Skill;
  content?: SkillContent;
  diagnostics: Diagnostic[];
}

function positionInBody(body: string, bodyLine: number, index: number): SourcePosition {
  const before = body.slice(0, index).split("\n");
  return { line: bodyLine + before.length - 1, column: before[before.length - 1]!.length + 1 };
}

/**
 * The first `` !`command` `` in the body, as `/!`[^`\n]+`/` finds it: the regex is tried only
 * where `` !` `` stands, which a body seldom holds, instead of along the whole body.
 */
function firstShellExpansion(body: string): { index: number; text: string } | undefined {
  for (let at = body.indexOf("!`"); at !== -1; at = body.indexOf("!`", at + 1)) {
    SHELL_EXPANSION.lastIndex = at;
    const match = SHELL_EXPANSION.exec(body);
    if (match) return { index: at, text: match[0] };
  }
  return undefined;
}

function splitWords(value: string): string[] {
  return value.split(/[\s,]+/).filter((w) => w !== "");
}

/** `arguments: [a, b]` or `arguments: a b`: the names a body reads as `$a`, `$b`. */
function declaredArguments(f: Findings, value: unknown): SkillArgument[] | undefined {
  if (value === undefined || value === null) return undefined;
  const names =
    typeof value === "string"
      ? splitWords(value)
      : Array.isArray(value) && value.every((v) => typeof v === "string")
        ? (value as string[])
        : undefined;
  if (!names) {
    f.error(
      "field-type",
      `"arguments" must be a list of names or a space-separated string, not ${kindOf(value)}`,
      "e.g. `arguments: [file, focus]`",
      f.value(["arguments"]),
    );
    return undefined;
  }
  const args: SkillArgument[] = [];
  for (const name of names) {
    if (!ARGUMENT_NAME.test(name)) {
      f.error(
        "argument-name",
        `argument name "${name}" is not valid`,
        "start with a letter or _, then letters, digits, _ or -",
        f.value(["arguments"]),
      );
      continue;
    }
    if (args.some((a) => a.name === name)) {
      f.error("duplicate-argument", `argument "${name}" is declared twice`, "keep one", f.value(["arguments"]));
      continue;
    }
    args.push({ name, required: false });
  }
  return args;
}

function booleanField(f: Findings, fm: Record<string, unknown>, key: string): boolean | undefined {
  const value = fm[key];
  if (value === undefined) return undefined;
  if (typeof value === "boolean") return value;
  f.warning(
    "field-type",
    `"${key}" must be true or false, not ${kindOf(value)}; it is ignored`,
    `write ${key}: true or ${key}: false`,
    f.value([key]),
  );
  return undefined;
}

/**
 * An Agent Skills folder (`SKILL.md` + files) as a skill of ours: always a prompt, `name` its id,
 * the body its text (rendered with Claude Code's `$` substitutions, never Handlebars). Lenient
 * where hosts are: only a missing or unreadable frontmatter, a missing or invalid `name` and a
 * missing `description` stop it; the specification's other rules are warnings (`validate
 * --strict` applies them exactly, see strict.ts).
 */
export function parseSkillMd(input: SkillMdInput): SkillMdParse {
  const f = new Findings(input.locators);
  const fm = input.frontmatter;
  if (!isPlainObject(fm)) {
    f.error(
      "not-a-mapping",
      `the frontmatter must be a mapping of fields, not ${kindOf(fm)}`,
      "write `name: …` and `description: …` between the `---` lines",
      { line: 2, column: 1 },
    );
    return { diagnostics: f.list };
  }

  warnUnknownFields(f, fm);
  const name = fm.name;
  checkName(f, name, input.folderName);
  const description = fm.description;
  checkDescription(f, description);
  const whenToUse = typeof fm.when_to_use === "string" ? fm.when_to_use : undefined;
  const hint = typeof fm["argument-hint"] === "string" ? fm["argument-hint"] : undefined;
  const declared = declaredArguments(f, fm.arguments);
  const hidden = booleanField(f, fm, "user-invocable") === false;
  const modelInvocable = booleanField(f, fm, "disable-model-invocation") !== true;

  const { tags, version, deprecated, optIn } = readTagsAndVersion(f, fm);
  const outline = bodyOutline(input.body);
  checkBody(f, input, outline.lines);
  if (f.failed || typeof name !== "string" || typeof description !== "string") return { diagnostics: f.list };
  const skill: Skill = {
    id: name,
    description: servedDescription(name, whenToUse ? `${description}\n\n${whenToUse}` : description, deprecated),
    type: "prompt",
    tags,
    arguments: declared ?? [
      { name: "arguments", description: hint ?? "Free text, as typed after the command", required: false },
    ],
    argumentsDeclared: declared !== undefined,
    ...(version !== undefined && { version }),
    ...headingsField(outline.headings),
    exampleCount: input.examples.length,
    format: "skill-md",
    frontmatter: fm,
    ...(input.examplesFile && { examplesFile: input.examplesFile }),
    ...(hidden && { hidden }),
    ...(!modelInvocable && { modelInvocable }),
    positional: declared !== undefined || hint !== undefined || input.body.includes("$ARGUMENTS"),
    ...(deprecated !== undefined && { deprecated }),
    ...(optIn && { optIn }),
  };
  return { skill, content: { template: input.body, examples: input.examples }, diagnostics: f.list };
}

function warnUnknownFields(f: Findings, fm: Record<string, unknown>): void {
  for (const key of Object.keys(fm)) {
    if (KNOWN_FIELDS.includes(key)) continue;
    const meant = closest(key, KNOWN_FIELDS);
    f.warning(
      "unknown-field",
      `unknown frontmatter field "${key}" is kept but means nothing here`,
      meant ? `did you mean "${meant}"?` : undefined,
      f.key([key]),
    );
  }
}

/** `name` is the skill's id: required and valid; a folder of another name is only a warning. */
function checkName(f: Findings, name: unknown, folderName: string): void {
  if (name === undefined)
    f.error(
      "missing-field",
      '"name" is missing',
      "add `name: <the folder's name>` (lowercase words joined by hyphens)",
      { line: 2, column: 1 },
    );
  else if (typeof name !== "string")
    f.error("field-type", `"name" must be text, not ${kindOf(name)}`, undefined, f.value(["name"]));
  else if (!isValidSkillId(name)) {
    f.error(
      "invalid-name",
      `name "${name}" is not valid`,
      `use 1–${MAX_SKILL_ID_LENGTH} lowercase letters, digits and single hyphens, not at either end (e.g. "pdf-processing")`,
      f.value(["name"]),
    );
  } else if (name !== folderName) {
    f.warning(
      "name-folder-mismatch",
      `name "${name}" differs from its folder "${folderName}"; it is served as "${name}"`,
      `rename the folder to "${name}"`,
      f.value(["name"]),
    );
  }
}

function checkDescription(f: Findings, description: unknown): void {
  if (description === undefined)
    f.error("missing-field", '"description" is missing', "add `description: what the skill does and when to use it`", {
      line: 2,
      column: 1,
    });
  else if (typeof description !== "string")
    f.error(
      "field-type",
      `"description" must be text, not ${kindOf(description)}`,
      undefined,
      f.value(["description"]),
    );
  else if (description.trim() === "")
    f.error(
      "empty-description",
      '"description" is empty',
      "say what the skill does and when to use it",
      f.value(["description"]),
    );
  else if (description.length > SKILL_MD_LIMITS.description) {
    f.warning(
      "description-too-long",
      `"description" is ${description.length} characters, over the specification's ${SKILL_MD_LIMITS.description}`,
      "some hosts refuse it: shorten it, or move detail to the body",
      f.value(["description"]),
    );
  }
}

/**
 * Tags and version, from `metadata` (the specification's place) or the top level (Claude Code's);
 * the lifecycle (`metadata.deprecated`, `metadata.enabled: "false"`) from `metadata` only, whose
 * values the specification keeps as text.
 */
function readTagsAndVersion(
  f: Findings,
  fm: Record<string, unknown>,
): { tags: string[]; version: string | undefined; deprecated?: string; optIn: boolean } {
  const metadata = isPlainObject(fm.metadata) ? fm.metadata : undefined;
  if (fm.metadata !== undefined && !metadata)
    f.warning(
      "field-type",
      `"metadata" must be a mapping of names to text, not ${kindOf(fm.metadata)}`,
      undefined,
      f.value(["metadata"]),
    );
  const tagSource = metadata?.tags ?? fm.tags;
  let tags: string[] = [];
  if (typeof tagSource === "string") tags = normaliseTags(splitWords(tagSource));
  else if (Array.isArray(tagSource) && tagSource.every((t) => typeof t === "string"))
    tags = normaliseTags(tagSource as string[]);
  else if (tagSource !== undefined)
    f.warning(
      "field-type",
      '"tags" must be text or a list of text; ignored',
      'e.g. `metadata: { tags: "review security" }`',
      f.value(metadata?.tags !== undefined ? ["metadata", "tags"] : ["tags"]),
    );
  const versionSource = metadata?.version ?? fm.version;
  const version =
    typeof versionSource === "string"
      ? versionSource
      : typeof versionSource === "number"
        ? String(versionSource)
        : undefined;
  const deprecated = deprecationOf(metadata?.deprecated);
  const optIn = textOrBoolean(metadata?.enabled) === "false";
  return { tags, version, ...(deprecated !== undefined && { deprecated }), optIn };
}

/** `true`/`false` written as text or as YAML booleans, trimmed and lowercase; other text as written (trimmed). */
function textOrBoolean(value: unknown): string | undefined {
  if (typeof value === "boolean") return String(value);
  if (typeof value !== "string") return undefined;
  const text = value.trim();
  return text.toLowerCase() === "true" || text.toLowerCase() === "false" ? text.toLowerCase() : text;
}

/** `metadata.deprecated`: a message, or "true" (no message); "false" or absent: not deprecated. */
function deprecationOf(value: unknown): string | undefined {
  const text = textOrBoolean(value);
  if (text === undefined || text === "false") return undefined;
  return text === "true" ? "" : text;
}

/** The body: over the specification's length, or with shell expansions this server does not run. */
function checkBody(f: Findings, input: SkillMdInput, bodyLines: number): void {
  if (bodyLines > SKILL_MD_LIMITS.bodyLines) {
    f.warning(
      "body-too-long",
      `the body is ${bodyLines} lines, over the ${SKILL_MD_LIMITS.bodyLines} the specification recommends`,
      "move detail into references/ files the body points to",
      { line: input.bodyLine, column: 1 },
    );
  }
  const shell = firstShellExpansion(input.body);
  if (shell) {
    f.warning(
      "shell-not-run",
      `${shell.text} is served as written: this server never runs commands`,
      "hosts that run it (Claude Code) still do when they load the skill themselves",
      positionInBody(input.body, input.bodyLine, shell.index),
    );
  }
}
