/** A skill's arguments as the fields of a flat form a client can ask a person to fill, from the skill's own declaration. */
import type { PrimitiveSchemaDefinition } from "@modelcontextprotocol/server";
import { isPlainObject, type JsonSchema } from "./json-schema.ts";
import type { Skill, SkillArgument } from "./skill.ts";

/**
 * A skill's arguments as fields of a flat form (what a client can ask a person for): a string,
 * a number or integer, a boolean, or a single choice among strings. Nested objects and arrays
 * cannot be a field. Built from the skill's own declaration, so the form says what the skill
 * says: title, description, choices (titled when the schema titles them), default, format,
 * length and range bounds. The type is the SDK's own definition of an elicitation form field,
 * less the multi-select (no skill argument is built as one).
 */
export type FormField = Exclude<PrimitiveSchemaDefinition, { type: "array" }>;

/** The formats a form field may carry; others are left off (the value is still validated as declared). */
const FORM_FORMATS = ["email", "uri", "date", "date-time"] as const;
type FormFormat = (typeof FORM_FORMATS)[number];

const isString = (value: unknown): value is string => typeof value === "string";
const isNumber = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value);
const isFormat = (value: unknown): value is FormFormat => FORM_FORMATS.some((f) => f === value);

/** `{ [key]: value }` when `value` passes `test`, else nothing: spread into a field. */
function kept<K extends string, V>(key: K, value: unknown, test: (v: unknown) => v is V): { [P in K]?: V } {
  return (test(value) ? { [key]: value } : {}) as { [P in K]?: V };
}

/** A pair of bounds (`minimum` and `maximum`, or `minLength` and `maxLength`), each where it passes `test`. */
function bounds<L extends string, H extends string>(
  schema: JsonSchema,
  low: L,
  high: H,
  test: (value: unknown) => value is number,
): { [P in L | H]?: number } {
  return { ...kept(low, schema[low], test), ...kept(high, schema[high], test) };
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
  const common = { ...kept("title", property.title, isString), ...kept("description", property.description, isString) };
  const isBoolean = (v: unknown): v is boolean => typeof v === "boolean";
  if (type === "boolean") return { type, ...common, ...kept("default", property.default, isBoolean) };
  if (type === "number" || type === "integer")
    return {
      type,
      ...common,
      ...bounds(property, "minimum", "maximum", isNumber),
      ...kept("default", property.default, isNumber),
    };
  if (type !== "string") return undefined;
  const defaults = kept("default", property.default, isString);
  if (titled) return { type, ...common, oneOf: titled, ...defaults };
  if (Array.isArray(property.enum)) {
    const choices = property.enum;
    if (!choices.every(isString)) return undefined;
    return { type, ...common, enum: choices, ...defaults };
  }
  const isLength = (v: unknown): v is number => Number.isInteger(v);
  const lengths = bounds(property, "minLength", "maxLength", isLength);
  return { type, ...common, ...lengths, ...kept("format", property.format, isFormat), ...defaults };
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
