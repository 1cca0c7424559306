/**
 * A call's arguments checked against the skill's JSON Schema (TypeBox, loaded on the first call
 * that validates; one compiled validator per schema), each problem with the argument it is about.
 */
import type SchemaModule from "typebox/schema";
import { quoted } from "../errors.ts";
import type { JsonSchema } from "../skill/json-schema.ts";

type Compiled = ReturnType<typeof SchemaModule.Compile>;
type ValidationError = ReturnType<Compiled["Errors"]>[1][number];
type XSchema = Parameters<typeof SchemaModule.Compile>[0];

interface Validator {
  Check(value: unknown): boolean;
  Errors(value: unknown): ReturnType<Compiled["Errors"]>;
}

/** One compiled validator per schema object, built on the first call that needs it. */
const validators = new WeakMap<JsonSchema, Validator>();

/** Compiles the validator for `schema` now (a guarded worker does this before any call is timed). */
export function prepareValidator(schema: JsonSchema): void {
  validatorFor(schema);
}

function validatorFor(schema: JsonSchema): Validator {
  let validator = validators.get(schema);
  if (validator === undefined) {
    // TypeBox's schema module loads on the first call that validates, not at start-up.
    const Schema = (require("typebox/schema") as { default: typeof SchemaModule }).default;
    try {
      validator = Schema.Compile(schema as XSchema);
    } catch (error) {
      if (!(error instanceof RangeError)) throw error;
      // TypeBox's compiler recurses once per entry of a list: around 10,000 enum values, anyOf
      // branches, properties or required names overflow the stack, and every call failed with
      // -32603. Its interpreter walks such a list in a loop: same answers, without the compiling.
      validator = {
        Check: (value) => Schema.Check(schema as XSchema, value),
        Errors: (value) => Schema.Errors(schema as XSchema, value),
      };
    }
    validators.set(schema, validator);
  }
  return validator;
}

/**
 * One problem with a call's arguments: which argument (its path from the arguments object, array
 * indices as numbers; empty for the arguments as a whole) and the line that says what is wrong.
 * Callers that need to know which argument failed read `path`; the text is rendered at the edge.
 */
export interface ArgumentProblem {
  path: readonly (string | number)[];
  message: string;
}

/** The problems as the lines of a result's text, in order. */
export function problemLines(problems: readonly ArgumentProblem[]): string[] {
  return problems.map((p) => p.message);
}

/** `/items/0/name` → `["items", 0, "name"]`. */
function pathOf(instancePath: string, child?: string): (string | number)[] {
  const parts: (string | number)[] = instancePath
    .split("/")
    .slice(1)
    .map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"))
    .map((p) => (/^\d+$/.test(p) ? Number(p) : p));
  if (child !== undefined) parts.push(child);
  return parts;
}

/** `["items", 0, "name"]` → `items[0].name`, the way a person writes an argument path. */
function written(path: readonly (string | number)[]): string {
  return path.reduce<string>(
    (text, part) => (typeof part === "number" ? `${text}[${part}]` : text ? `${text}.${part}` : part),
    "",
  );
}

const ARTICLE_TYPES: Record<string, string> = {
  string: "a string",
  number: "a number",
  integer: "an integer",
  boolean: "a boolean",
  array: "an array",
  object: "an object",
  null: "null",
};

function describeType(type: unknown): string {
  const types = Array.isArray(type) ? type : [type];
  return types.map((t) => ARTICLE_TYPES[String(t)] ?? String(t)).join(" or ");
}

function list(values: unknown): string {
  return (Array.isArray(values) ? values : [values])
    .map((v) => (typeof v === "string" ? v : JSON.stringify(v)))
    .join(", ");
}

/** Keyword → the rule in words, completing `Argument "x" …`. */
function rule(error: ValidationError): string {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case "type":
      return `must be ${describeType(params.type)}`;
    case "enum":
      return `must be one of: ${list(params.allowedValues)}`;
    case "const":
      return `must be ${list(params.allowedValue)}`;
    case "pattern":
      return `must match the pattern ${String(params.pattern)}`;
    case "format":
      return `must be a valid ${String(params.format)}`;
    case "minLength":
      return `must be at least ${String(params.limit)} character${params.limit === 1 ? "" : "s"} long`;
    case "maxLength":
      return `must be at most ${String(params.limit)} character${params.limit === 1 ? "" : "s"} long`;
    case "minimum":
      return `must be >= ${String(params.limit)}`;
    case "maximum":
      return `must be <= ${String(params.limit)}`;
    case "exclusiveMinimum":
      return `must be > ${String(params.limit)}`;
    case "exclusiveMaximum":
      return `must be < ${String(params.limit)}`;
    case "minItems":
      return `must have at least ${String(params.limit)} item${params.limit === 1 ? "" : "s"}`;
    case "maxItems":
      return `must have at most ${String(params.limit)} item${params.limit === 1 ? "" : "s"}`;
    case "minProperties":
      return `must have at least ${String(params.limit)} propert${params.limit === 1 ? "y" : "ies"}`;
    case "maxProperties":
      return `must have at most ${String(params.limit)} propert${params.limit === 1 ? "y" : "ies"}`;
    case "uniqueItems":
      return "must not contain duplicate items";
    case "multipleOf":
      return `must be a multiple of ${String(params.multipleOf)}`;
    default:
      return error.message;
  }
}

/** One problem per line; exact wording for a missing property is part of the wire contract. */
function describe(error: ValidationError, all: readonly ValidationError[]): ArgumentProblem[] {
  const params = error.params as Record<string, unknown>;
  if (error.keyword === "required") {
    const missing = Array.isArray(params.requiredProperties) ? params.requiredProperties : [];
    return missing.map((name) => {
      const path = pathOf(error.instancePath, String(name));
      return { path, message: `Missing required argument: "${written(path)}"` };
    });
  }
  if (error.keyword === "additionalProperties") {
    const extra = Array.isArray(params.additionalProperties) ? params.additionalProperties : [];
    // With an `additionalProperties` schema (not `false`), extra arguments are allowed and the
    // real problem is reported at the argument itself.
    const explained = (name: unknown) =>
      all.some(
        (other) =>
          other !== error &&
          other.keyword !== "boolean" &&
          other.instancePath === `${error.instancePath}/${String(name)}`,
      );
    return extra
      .filter((name) => !explained(name))
      .map((name) => {
        const path = pathOf(error.instancePath, String(name));
        return { path, message: `Unexpected argument "${quoted(written(path))}": the tool does not accept it` };
      });
  }
  const path = pathOf(error.instancePath);
  return [
    { path, message: path.length === 0 ? `Arguments ${rule(error)}` : `Argument "${written(path)}" ${rule(error)}` },
  ];
}

/** Errors that only restate another one (an unexpected property also fails its `false` schema). */
function isEcho(error: ValidationError, all: readonly ValidationError[]): boolean {
  if (error.keyword !== "boolean") return false;
  return all.some((other) => other.keyword === "additionalProperties");
}

/** The problems with `args` against `schema`, or none, each line once. Checking valid input costs ~1 µs. */
export function argumentProblems(schema: JsonSchema, args: unknown): ArgumentProblem[] {
  const validator = validatorFor(schema);
  if (validator.Check(args)) return [];
  const [, errors] = validator.Errors(args);
  const seen = new Set<string>();
  return errors
    .filter((e) => !isEcho(e, errors))
    .flatMap((e) => describe(e, errors))
    .filter((p) => !seen.has(p.message) && seen.add(p.message));
}
