/** A YAML skill file read as a skill: its fields checked, every finding placed, typos of field names named. */
import type { Diagnostic, SourcePosition } from "../diagnostics.ts";
import { readExamples } from "./examples.ts";
import { withHeadings } from "./headings.ts";
import { Findings, kindOf, unknownKeys, type SourceLocators } from "./findings.ts";
import { closest } from "../suggest.ts";
import { isValidSkillId, MAX_TOOL_ID_LENGTH, SKILL_ID_RULE } from "./id.ts";
import { isPlainObject, type JsonSchema } from "./json-schema.ts";
import { unknownSchemaKeywords } from "./schema-keywords.ts";
import { proveInputSchema } from "./schema-proof.ts";
import { servedDescription, type Skill, type SkillArgument, type SkillContent, type SkillType } from "./skill.ts";
import { normaliseTags } from "./tags.ts";
import { proveTemplate } from "./template-proof.ts";

/** A skill file's verdict: a skill and its content when it can be served, and every finding. */
export interface SkillParse {
  skill?: Skill;
  content?: SkillContent;
  diagnostics: Diagnostic[];
}

const FIELDS = [
  "id",
  "name",
  "description",
  "type",
  "tags",
  "arguments",
  "prompt",
  "inputSchema",
  "version",
  "examples",
  "deprecated",
  "enabled",
] as const;
const ARGUMENT_FIELDS = ["name", "description", "required", "enum"] as const;
const TYPES: readonly SkillType[] = ["prompt", "tool"];
const ARGUMENT_NAME = /^[A-Za-z_][A-Za-z0-9_-]*$/;

const REQUIRED = ["id", "description", "type"] as const;

/** An unknown key that is a misspelling of a required field that is absent (`descripton`). */
function typoOf(doc: Record<string, unknown>, field: string): string | undefined {
  return Object.keys(doc).find(
    (key) => !(FIELDS as readonly string[]).includes(key) && closest(key, [field]) === field,
  );
}

/** A required top-level field that is absent: pointed at a misspelling of it when there is one. */
function missing(f: Findings, doc: Record<string, unknown>, field: string, example: string): void {
  const typo = typoOf(doc, field);
  if (typo) {
    f.error(
      "missing-field",
      `"${field}" is missing; "${typo}" looks like a misspelling of it`,
      `rename "${typo}" to "${field}"`,
      f.key([typo]),
    );
  } else {
    f.error("missing-field", `"${field}" is missing`, `add a line such as \`${example}\``, { line: 1, column: 1 });
  }
}

function stringField(f: Findings, doc: Record<string, unknown>, field: string, hint: string): string | undefined {
  const value = doc[field];
  if (value === undefined) return undefined;
  if (typeof value === "string") return value;
  f.error("field-type", `"${field}" must be text, not ${kindOf(value)}`, hint, f.value([field]));
  return undefined;
}

function readArguments(f: Findings, value: unknown): SkillArgument[] | undefined {
  if (value === undefined) return undefined;
  if (value === null) return [];
  if (!Array.isArray(value)) {
    f.error(
      "field-type",
      `"arguments" must be a list, not ${kindOf(value)}`,
      "write one `- name: …` item per argument",
      f.value(["arguments"]),
    );
    return undefined;
  }
  const args: SkillArgument[] = [];
  const names = new Set<string>();
  value.forEach((item, i) => {
    const arg = readArgument(f, item, i, names);
    if (!arg) return;
    names.add(arg.name);
    args.push(arg);
  });
  return args;
}

/** Argument `i` (0-based), or undefined when it has no usable name. */
function readArgument(f: Findings, item: unknown, i: number, names: ReadonlySet<string>): SkillArgument | undefined {
  const path = ["arguments", i];
  if (!isPlainObject(item)) {
    f.error(
      "field-type",
      `argument ${i + 1} must be a mapping, not ${kindOf(item)}`,
      "write `- name: <name>` with optional description, required and enum",
      () => f.value(path),
    );
    return undefined;
  }
  unknownKeys(f, item, ARGUMENT_FIELDS, path, ` in argument ${i + 1}`);
  const { description, required } = item;
  const name = readArgumentName(f, item.name, i, names);
  if (name === undefined) return undefined;
  if (description !== undefined && typeof description !== "string") {
    f.error(
      "field-type",
      `"description" of argument "${name}" must be text, not ${kindOf(description)}`,
      "quote it",
      () => f.value([...path, "description"]),
    );
  }
  if (required !== undefined && typeof required !== "boolean") {
    f.error(
      "field-type",
      `"required" of argument "${name}" must be true or false, not ${kindOf(required)}`,
      "write required: true or required: false",
      () => f.value([...path, "required"]),
    );
  }
  let values: string[] | undefined;
  if (item.enum !== undefined) {
    if (Array.isArray(item.enum) && item.enum.every((v) => typeof v === "string")) values = item.enum as string[];
    else
      f.error(
        "field-type",
        `"enum" of argument "${name}" must be a list of text values`,
        'quote values YAML would read otherwise, e.g. "yes", "1.0"',
        () => f.value([...path, "enum"]),
      );
  }
  return {
    name,
    ...(typeof description === "string" && { description }),
    required: required === true,
    ...(values && { enum: values }),
  };
}

/** The name of argument `i`: present, well-formed and not taken by an earlier argument. */
function readArgumentName(f: Findings, name: unknown, i: number, names: ReadonlySet<string>): string | undefined {
  const path = ["arguments", i];
  if (typeof name !== "string" || name === "") {
    f.error("argument-name", `argument ${i + 1} has no "name"`, "add `name: <name>` (letters, digits, _ and -)", () =>
      f.value(path),
    );
    return undefined;
  }
  if (!ARGUMENT_NAME.test(name)) {
    f.error(
      "argument-name",
      `argument name "${name}" is not valid`,
      "start with a letter or _, then letters, digits, _ or -",
      () => f.value([...path, "name"]),
    );
    return undefined;
  }
  if (names.has(name)) {
    f.error("duplicate-argument", `argument "${name}" is declared twice`, "keep one of the two declarations", () =>
      f.value([...path, "name"]),
    );
    return undefined;
  }
  return name;
}

/** Tools without a schema accept their declared arguments, as strings. */
function schemaFromArguments(args: readonly SkillArgument[]): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const a of args) {
    properties[a.name] = {
      type: "string",
      ...(a.description && { description: a.description }),
      ...(a.enum && { enum: a.enum }),
    };
  }
  const required = args.filter((a) => a.required).map((a) => a.name);
  return { type: "object", properties, ...(required.length > 0 && { required }) };
}

function readType(f: Findings, doc: Record<string, unknown>): SkillType | undefined {
  const value = doc.type;
  if (value === undefined) {
    missing(f, doc, "type", "type: prompt");
    return undefined;
  }
  if (value === "prompt" || value === "tool") return value;
  const meant = typeof value === "string" ? closest(value, TYPES) : undefined;
  f.error(
    "invalid-type",
    `"type" must be prompt or tool, not ${typeof value === "string" ? `"${value}"` : kindOf(value)}`,
    meant ? `did you mean "${meant}"?` : "prompt: rendered for a person; tool: called by the model",
    f.value(["type"]),
  );
  return undefined;
}

function readTags(f: Findings, value: unknown): string[] {
  if (value === undefined || value === null) return [];
  if (typeof value === "string") return normaliseTags([value]);
  if (Array.isArray(value) && value.every((t) => typeof t === "string")) return normaliseTags(value as string[]);
  f.error(
    "field-type",
    `"tags" must be text or a list of text, not ${kindOf(value)}`,
    "e.g. `tags: [review, security]`",
    f.value(["tags"]),
  );
  return [];
}

function readVersion(f: Findings, value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string") return value;
  if (typeof value === "number") {
    f.warning(
      "version-not-text",
      `"version" is the number ${String(value)}, served as "${String(value)}"`,
      `quote it (version: "${String(value)}") so YAML keeps it as written`,
      f.value(["version"]),
    );
    return String(value);
  }
  f.error(
    "field-type",
    `"version" must be text, not ${kindOf(value)}`,
    'e.g. `version: "1.2.0"`',
    f.value(["version"]),
  );
  return undefined;
}

/**
 * Turns a parsed YAML (or JSON) skill document into a servable skill, or says precisely why it
 * cannot be served. Everything that could otherwise fail at request time (id, template, schema)
 * is proven here; mistakes that would pass silently (unknown keys, template variables nothing
 * declares) are warnings.
 */
export function parseYamlSkill(data: unknown, locators: SourceLocators): SkillParse {
  const f = new Findings(locators);
  if (!isPlainObject(data)) {
    f.error(
      "not-a-mapping",
      `a skill file must be a mapping of fields, not ${kindOf(data)}`,
      "start with `id:`, `description:` and `type:` lines",
      { line: 1, column: 1 },
    );
    return { diagnostics: f.list };
  }
  const doc = data;
  // A misspelt required field is reported once, as the missing field it is, not also as unknown.
  const misspelt = new Set(
    REQUIRED.flatMap((field) => (doc[field] === undefined ? [typoOf(doc, field)] : [])).filter(
      (k): k is string => k !== undefined,
    ),
  );
  unknownKeys(f, doc, FIELDS, [], "", misspelt);

  const id = readId(f, doc);
  const title = stringField(f, doc, "name", "e.g. `name: Review a pull request`");
  const description = readDescription(f, doc);
  const type = readType(f, doc);
  if (type === "tool" && id !== undefined && isValidSkillId(id)) warnLongToolId(f, id);
  const tags = readTags(f, doc.tags);
  const declared = readArguments(f, doc.arguments);
  const template = stringField(f, doc, "prompt", "write the template as a block: `prompt: |` then indented lines");
  const version = readVersion(f, doc.version);
  const lifecycle = readLifecycle(f, doc);
  const examples = readExamples(f, doc.examples);
  if (type === "prompt") checkPromptFields(f, doc);
  const variables = template === undefined ? [] : templateVariables(f, template);
  const inputSchema = type === "tool" ? readInputSchema(f, doc.inputSchema, declared) : undefined;

  // Names the template reads that nothing provides render empty: almost always a typo.
  const provided =
    type === "tool" && inputSchema && isPlainObject(inputSchema.properties)
      ? Object.keys(inputSchema.properties)
      : declared?.map((a) => a.name);
  if (provided && template !== undefined && !f.failed) {
    warnUndeclaredVariables(f, template, variables, provided);
    if (type === "prompt") warnUnusedArguments(f, variables, declared ?? []);
  }

  if (f.failed || id === undefined || description === undefined || type === undefined) return { diagnostics: f.list };
  const skill: Skill = {
    id,
    ...(title !== undefined && { title }),
    description: servedDescription(id, description, lifecycle.deprecated),
    type,
    tags,
    arguments: declared ?? variables.map((name) => ({ name, required: false })),
    argumentsDeclared: declared !== undefined,
    ...(inputSchema !== undefined && { inputSchema }),
    ...(version !== undefined && { version }),
    ...withHeadings(template),
    exampleCount: examples.length,
    ...(lifecycle.deprecated !== undefined && { deprecated: lifecycle.deprecated }),
    ...(lifecycle.optIn && { optIn: true }),
  };
  return { skill, content: { ...(template !== undefined && { template }), examples }, diagnostics: f.list };
}

/** `deprecated: "<message>"` (or `true`) and `enabled: false`: a skill being retired, an opt-in skill. */
function readLifecycle(f: Findings, doc: Record<string, unknown>): { deprecated?: string; optIn: boolean } {
  const { deprecated, enabled } = doc;
  let message: string | undefined;
  if (deprecated === true) message = "";
  else if (typeof deprecated === "string") message = deprecated.trim();
  else if (deprecated !== undefined && deprecated !== false)
    f.warning(
      "field-type",
      `"deprecated" must be a message (text) or true, not ${kindOf(deprecated)}; ignored`,
      'e.g. `deprecated: "use review-pr-v2 instead"`',
      f.value(["deprecated"]),
    );
  if (enabled !== undefined && typeof enabled !== "boolean")
    f.warning(
      "field-type",
      `"enabled" must be true or false, not ${kindOf(enabled)}; ignored`,
      "enabled: false makes the skill opt-in (a project's `enable: [id]` switches it on)",
      f.value(["enabled"]),
    );
  return { ...(message !== undefined && { deprecated: message }), optIn: enabled === false };
}

function readId(f: Findings, doc: Record<string, unknown>): string | undefined {
  const id = stringField(f, doc, "id", "e.g. `id: review-pr`");
  if (doc.id === undefined) missing(f, doc, "id", "id: review-pr");
  else if (id !== undefined && !isValidSkillId(id))
    f.error("invalid-id", `id "${id}" is not valid`, `use ${SKILL_ID_RULE}`, f.value(["id"]));
  return id;
}

function readDescription(f: Findings, doc: Record<string, unknown>): string | undefined {
  const description = stringField(f, doc, "description", "one line saying what the skill does and when to use it");
  if (doc.description === undefined) missing(f, doc, "description", "description: What the skill does");
  else if (description !== undefined && description.trim() === "")
    f.error(
      "empty-description",
      '"description" is empty',
      "say what the skill does and when to use it",
      f.value(["description"]),
    );
  return description;
}

function warnLongToolId(f: Findings, id: string): void {
  if (id.length <= MAX_TOOL_ID_LENGTH) return;
  f.warning(
    "long-tool-id",
    `tool id "${id}" is ${id.length} characters: as mcp__skill-central__${id} it is over the 64 that clients' models take, so it is not listed as a tool and runs only through run_skill_tool`,
    `keep tool ids to ${MAX_TOOL_ID_LENGTH} characters`,
    f.value(["id"]),
  );
}

/** A prompt skill needs a template and takes no inputSchema. */
function checkPromptFields(f: Findings, doc: Record<string, unknown>): void {
  if (doc.prompt === undefined)
    f.error(
      "missing-prompt",
      'a prompt skill needs a "prompt" template',
      "add `prompt: |` followed by the indented text",
      f.value(["type"]),
    );
  if (doc.inputSchema !== undefined) {
    f.warning(
      "ignored-field",
      '"inputSchema" is ignored on a prompt skill',
      'only tools take one; declare prompt inputs under "arguments"',
      f.key(["inputSchema"]),
    );
  }
}

/** The variables a template reads, proven here so that rendering cannot fail on its syntax. */
function templateVariables(f: Findings, template: string): string[] {
  const proof = proveTemplate(template, (p) => f.value(["prompt"], p));
  if (proof.ok) return proof.variables;
  f.error("invalid-template", proof.message, proof.hint, f.value(["prompt"], proof.position));
  return [];
}

/** A tool's schema: as written when it is valid, else made from its declared arguments, else empty. */
function readInputSchema(
  f: Findings,
  value: unknown,
  declared: readonly SkillArgument[] | undefined,
): JsonSchema | undefined {
  if (value === undefined) return declared ? schemaFromArguments(declared) : { type: "object", properties: {} };
  let inputSchema: JsonSchema | undefined;
  const proof = proveInputSchema(value);
  if (proof.ok) inputSchema = value as JsonSchema;
  else
    for (const p of proof.problems)
      f.error(
        "invalid-input-schema",
        `invalid inputSchema: ${p.message}`,
        p.hint,
        () => f.value(["inputSchema", ...p.path]) ?? f.value(["inputSchema"]),
      );
  for (const u of unknownSchemaKeywords(value)) {
    f.warning(
      "unknown-schema-keyword",
      `"${u.keyword}" in inputSchema is not a JSON Schema keyword and is ignored`,
      `did you mean "${u.meant}"?`,
      () => f.key(["inputSchema", ...u.path]),
    );
  }
  return inputSchema;
}

function warnUndeclaredVariables(f: Findings, template: string, variables: string[], provided: string[]): void {
  const names = new Set(provided);
  for (const variable of variables) {
    if (names.has(variable)) continue;
    // The suggestion compares the variable with every name provided: only for listed findings.
    if (!f.room("undeclared-variable")) {
      f.unlisted("warning", "undeclared-variable");
      continue;
    }
    const meant = closest(variable, provided);
    f.warning(
      "undeclared-variable",
      `the template reads {{${variable}}}, which no argument declares, so it renders empty`,
      meant ? `did you mean {{${meant}}}?` : `declare an argument named "${variable}"`,
      () => f.value(["prompt"], positionOf(template, variable)),
    );
  }
}

function warnUnusedArguments(f: Findings, variables: string[], declared: readonly SkillArgument[]): void {
  for (const [i, arg] of declared.entries()) {
    if (variables.includes(arg.name)) continue;
    f.warning(
      "unused-argument",
      `argument "${arg.name}" is declared but the template never uses it`,
      `add {{${arg.name}}} to the template, or remove the argument`,
      () => f.value(["arguments", i, "name"]),
    );
  }
}

/** The 1-based position of the first `{{name` in a template, for pointing at a variable. */
function positionOf(template: string, variable: string): SourcePosition | undefined {
  const match = new RegExp(`\\{\\{[#^/]?\\s*(?:[a-z]+\\s+)?${variable.replace(/[$]/g, "\\$")}\\b`).exec(template);
  if (!match) return undefined;
  const before = template.slice(0, match.index).split("\n");
  return { line: before.length, column: before[before.length - 1]!.length + 1 };
}
