/** A skill's arguments as the CLI shows them, and `--arg` text turned into the type each declares. */
import type { Skill } from "../../skill/skill.ts";
import { isPlainObject } from "../../skill/json-schema.ts";

/** An argument as a person reads it in `show`: what the server checks, not just what was declared. */
export interface ArgumentLine {
  name: string;
  required: boolean;
  /** The JSON Schema type(s) of a tool property, e.g. `integer`, `string | null`. */
  type?: string;
  enum?: string[];
  description?: string;
}

function typeOf(schema: Record<string, unknown>): string | undefined {
  const type = schema.type;
  if (typeof type === "string") return type;
  if (Array.isArray(type)) return type.map(String).join(" | ");
  if (schema.$ref !== undefined) return String(schema.$ref);
  return undefined;
}

/**
 * A tool's arguments come from its `inputSchema` (that is what `tools/call` validates); a prompt's
 * are the declared ones, or its template's variables when none are declared.
 */
export function argumentLines(skill: Skill): ArgumentLine[] {
  if (skill.type === "tool" && skill.inputSchema) {
    const properties = isPlainObject(skill.inputSchema.properties) ? skill.inputSchema.properties : {};
    const required = new Set(Array.isArray(skill.inputSchema.required) ? skill.inputSchema.required.map(String) : []);
    return Object.entries(properties).map(([name, raw]) => {
      const schema = isPlainObject(raw) ? raw : {};
      const type = typeOf(schema);
      return {
        name,
        required: required.has(name),
        ...(type !== undefined && { type }),
        ...(Array.isArray(schema.enum) && {
          enum: schema.enum.map((v) => (typeof v === "string" ? v : JSON.stringify(v))),
        }),
        ...(typeof schema.description === "string" && { description: schema.description }),
      };
    });
  }
  return skill.arguments.map((a) => ({
    name: a.name,
    required: a.required,
    ...(a.enum && { enum: [...a.enum] }),
    ...(a.description !== undefined && { description: a.description }),
  }));
}

/**
 * `--arg k=v` gives text. A tool property whose schema type is not a string (a count, a flag, a
 * list) reads the text as JSON when it parses as such, so `--arg count=3` means the number 3;
 * everything else stays text, exactly as typed.
 */
export function coerceArgument(skill: Skill | undefined, name: string, value: string): unknown {
  if (skill?.type !== "tool" || !skill.inputSchema || !isPlainObject(skill.inputSchema.properties)) return value;
  const schema = skill.inputSchema.properties[name];
  if (!isPlainObject(schema) || schema.type === undefined) return value;
  const types = (Array.isArray(schema.type) ? schema.type : [schema.type]).map(String);
  if (types.includes("string")) return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}
