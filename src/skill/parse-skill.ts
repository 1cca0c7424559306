import type { Diagnostic, SourcePosition } from "../diagnostics.ts";
import { proveTemplate } from "./template-proof.ts";
import { isPlainObject, type JsonSchema } from "./json-schema.ts";
import { proveInputSchema } from "./schema-proof.ts";
import {
  KNOWN_FIELDS,
  skillDocumentValidator,
  type SkillDocument,
} from "./document-schema.ts";
import { skillIdProblem } from "./id.ts";
import type { Skill, SkillArgument } from "./skill.ts";
import { normaliseTags } from "./tags.ts";

/** Where a field sits in its source; supplied by storage, so this module knows nothing of files. */
export type FieldLocator = (path: readonly (string | number)[], within?: SourcePosition) => SourcePosition | undefined;

export interface SourceLocators {
  /** A field's value (or, with `within`, a position inside a string value). */
  locate: FieldLocator;
  /** A field's key. */
  locateKey: (path: readonly (string | number)[]) => SourcePosition | undefined;
}

export type SkillParse =
  | { ok: true; skill: Skill; warnings: Diagnostic[] }
  | { ok: false; errors: Diagnostic[] };

function problem(code: string, message: string, position?: SourcePosition): Diagnostic {
  return { severity: "error", code, message: `skipped: ${message}`, position };
}

function pathOf(instancePath: string): (string | number)[] {
  return instancePath
    .split("/")
    .slice(1)
    .map((p) => (/^\d+$/.test(p) ? Number(p) : p));
}

function describeField(instancePath: string): string {
  return instancePath === "" ? "the skill" : `"${pathOf(instancePath).join(".")}"`;
}

function documentErrors(data: unknown, locate: FieldLocator): Diagnostic[] {
  if (!isPlainObject(data)) return [problem("not-a-mapping", "a skill file must be a mapping with id, description and type", locate([]))];
  const errors = skillDocumentValidator().Errors(data);
  const deepest = errors.filter((e) => !errors.some((o) => o !== e && o.instancePath.startsWith(`${e.instancePath}/`)));
  const seen = new Set<string>();
  const out: Diagnostic[] = [];
  for (const error of deepest) {
    const params = error.params as Record<string, unknown>;
    const key = `${error.instancePath}:${error.keyword}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (error.keyword === "required") {
      const missing = (Array.isArray(params.requiredProperties) ? params.requiredProperties : []).join(", ");
      out.push(problem("missing-field", `${describeField(error.instancePath)} is missing required field(s): ${missing}`, locate(pathOf(error.instancePath))));
    } else {
      out.push(problem("invalid-field", `field ${describeField(error.instancePath)} ${error.message}`, locate(pathOf(error.instancePath))));
    }
  }
  return out.length > 0 ? out : [problem("invalid-skill", "the skill does not match the skill format", locate([]))];
}


function declaredArguments(doc: SkillDocument): SkillArgument[] {
  return (doc.arguments ?? []).map((a) => ({
    name: a.name,
    ...(a.description !== undefined && { description: a.description }),
    required: a.required === true,
    ...(a.enum !== undefined && { enum: a.enum }),
  }));
}

/** Tools without a schema accept their declared arguments, as strings. */
function schemaFromArguments(args: readonly SkillArgument[]): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const a of args) {
    properties[a.name] = { type: "string", ...(a.description && { description: a.description }), ...(a.enum && { enum: a.enum }) };
  }
  const required = args.filter((a) => a.required).map((a) => a.name);
  return { type: "object", properties, ...(required.length > 0 && { required }) };
}

/**
 * Turns a parsed document into a servable skill, or says precisely why it cannot be served.
 * Everything that could otherwise fail at request time (id, template, schema) is proven here.
 */
export function parseSkill(data: unknown, { locate, locateKey }: SourceLocators): SkillParse {
  if (!skillDocumentValidator().Check(data)) return { ok: false, errors: documentErrors(data, locate) };
  const doc = data;
  const errors: Diagnostic[] = [];
  const warnings: Diagnostic[] = [];

  const idProblem = skillIdProblem(doc.id);
  if (idProblem) errors.push(problem("invalid-id", `id ${idProblem.replace(" is not a valid id:", " must be")}`, locate(["id"])));
  if (doc.type === "prompt" && doc.prompt === undefined) {
    errors.push(problem("missing-prompt", 'a prompt skill needs a "prompt" template', locate([])));
  }
  if (doc.type === "prompt" && doc.inputSchema !== undefined) {
    warnings.push({ severity: "warning", code: "ignored-field", message: '"inputSchema" is ignored on a prompt skill (only tools take one)', position: locate(["inputSchema"]) });
  }
  const names = new Set<string>();
  (doc.arguments ?? []).forEach((a, i) => {
    if (names.has(a.name)) errors.push(problem("duplicate-argument", `argument "${a.name}" is declared twice`, locate(["arguments", i, "name"])));
    names.add(a.name);
  });

  let variables: string[] = [];
  if (doc.prompt !== undefined) {
    const proof = proveTemplate(doc.prompt);
    if (proof.ok) variables = proof.variables;
    else errors.push(problem("invalid-template", proof.message, locate(["prompt"], proof.position)));
  }

  let inputSchema: JsonSchema | undefined;
  if (doc.type === "tool") {
    if (doc.inputSchema !== undefined) {
      const proof = proveInputSchema(doc.inputSchema);
      if (proof.ok) inputSchema = doc.inputSchema;
      else errors.push(problem("invalid-input-schema", `invalid inputSchema: ${proof.problems.join("; ")}`, locate(["inputSchema"])));
    } else {
      inputSchema = schemaFromArguments(declaredArguments(doc));
    }
  }

  for (const key of Object.keys(doc)) {
    if (!KNOWN_FIELDS.has(key)) {
      warnings.push({ severity: "warning", code: "unknown-field", message: `unknown field "${key}" is ignored`, position: locateKey([key]) });
    }
  }
  if (errors.length > 0) return { ok: false, errors };

  const argumentsDeclared = doc.arguments !== undefined;
  const skill: Skill = {
    id: doc.id,
    ...(doc.name !== undefined && { title: doc.name }),
    description: doc.description,
    type: doc.type,
    tags: normaliseTags(doc.tags === undefined ? [] : typeof doc.tags === "string" ? [doc.tags] : doc.tags),
    arguments: argumentsDeclared ? declaredArguments(doc) : variables.map((name) => ({ name, required: false })),
    argumentsDeclared,
    ...(doc.prompt !== undefined && { prompt: doc.prompt }),
    ...(inputSchema !== undefined && { inputSchema }),
    ...(doc.version !== undefined && { version: doc.version }),
    examples: doc.examples ?? [],
  };
  return { ok: true, skill, warnings };
}
