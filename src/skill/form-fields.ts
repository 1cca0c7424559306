import { isPlainObject, type JsonSchema } from "./json-schema.ts";
import type { Skill, SkillArgument } from "./skill.ts";

/**
 * A skill's arguments as fields of a flat form (what a client can ask a person for): a string,
 * a number or integer, a boolean, or a single choice among strings. Nested objects and arrays
 * cannot be a field. Built from the skill's own declaration, so the form says what the skill
 * says: title, description, choices (titled when the schema titles them), default, format,
 * length and range bounds.
 */
export type FormField = Readonly<Record<string, unknown>>;

/** The formats a form field may carry; others are left off (the value is still validated as declared). */
const FORM_FORMATS: ReadonlySet<string> = new Set(["email", "uri", "date", "date-time"]);
const FIELD_TYPES: ReadonlySet<string> = new Set(["string", "number", "integer", "boolean"]);

const isString = (value: unknown): value is string => typeof value === "string";
const isNumber = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value);

/** Copies each keyword that passes its test. */
function pick(
  schema: JsonSchema,
  tests: Readonly<Record<string, (value: unknown) => boolean>>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, test] of Object.entries(tests)) if (test(schema[key])) out[key] = schema[key];
  return out;
}

/** `oneOf: [{ const, title }]` of strings: a titled choice; undefined when the schema has no such list. */
function titledChoices(schema: JsonSchema): { const: string; title: string }[] | undefined {
  const options = schema.oneOf ?? schema.anyOf;
  if (!Array.isArray(options) || options.length === 0) return undefined;
  const titled = options.map((o) =>
    isPlainObject(o) && isString(o.const)
      ? { const: o.const, title: isString(o.title) ? o.title : o.const }
      : undefined,
  );
  return titled.every((o) => o !== undefined) ? titled : undefined;
}

/** A tool schema property as a form field, or undefined when it cannot be one (object, array, union, reference). */
export function fieldOfProperty(property: unknown): FormField | undefined {
  if (!isPlainObject(property)) return undefined;
  const titled = titledChoices(property);
  const type = property.type ?? (titled || Array.isArray(property.enum) ? "string" : undefined);
  if (!isString(type) || !FIELD_TYPES.has(type)) return undefined;
  const common = pick(property, { title: isString, description: isString });
  if (type === "boolean") return { type, ...common, ...pick(property, { default: (v) => typeof v === "boolean" }) };
  if (type === "number" || type === "integer")
    return { type, ...common, ...pick(property, { minimum: isNumber, maximum: isNumber, default: isNumber }) };
  const defaults = pick(property, { default: isString });
  if (titled) return { type, ...common, oneOf: titled, ...defaults };
  if (Array.isArray(property.enum)) {
    if (!property.enum.every(isString)) return undefined;
    return { type, ...common, enum: property.enum, ...defaults };
  }
  const format = isString(property.format) && FORM_FORMATS.has(property.format) ? { format: property.format } : {};
  const lengths = pick(property, { minLength: Number.isInteger, maxLength: Number.isInteger });
  return { type, ...common, ...lengths, ...format, ...defaults };
}

/** A prompt argument as a form field: always text, a choice when it lists `enum` values. */
export function fieldOfPromptArgument(argument: SkillArgument): FormField {
  return {
    type: "string",
    title: argument.name,
    ...(argument.description !== undefined && { description: argument.description }),
    ...(argument.enum && { enum: argument.enum }),
  };
}

/** The names a tool schema requires, in its order (empty for anything malformed). */
export function requiredNames(schema: JsonSchema | undefined): readonly string[] {
  const required = schema?.required;
  return Array.isArray(required) ? required.filter(isString) : [];
}

/** A tool schema's property, own keys only (a property named like an Object.prototype member is not inherited). */
export function propertyOf(schema: JsonSchema, name: string): unknown {
  const properties = schema.properties;
  return isPlainObject(properties) && Object.hasOwn(properties, name) ? properties[name] : undefined;
}

/** The required arguments of a skill that no form can ask for (validate warns about them). */
export function unaskableRequired(skill: Skill): string[] {
  if (skill.type !== "tool" || skill.inputSchema === undefined) return [];
  const schema = skill.inputSchema;
  return requiredNames(schema).filter((name) => fieldOfProperty(propertyOf(schema, name)) === undefined);
}
