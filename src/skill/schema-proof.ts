/**
 * A tool skill's input schema proved at load: the common keywords checked by hand, and only an
 * unusual schema checked against the 2020-12 meta-schema (TypeBox, loaded then).
 */
import type SchemaModule from "typebox/schema";
import { closest } from "../suggest.ts";
import { isPlainObject, type JsonSchema } from "./json-schema.ts";

/** A problem and where it is, as a path inside the schema (for a position in the file). */
export interface SchemaProblem {
  message: string;
  /** How to fix it, when there is something to say. */
  hint?: string;
  path: (string | number)[];
}

export type SchemaProof = { ok: true } | { ok: false; problems: SchemaProblem[] };

const META_SCHEMA_ID = "https://json-schema.org/draft/2020-12/schema";
type Validator = ReturnType<typeof SchemaModule.Compile>;
let metaValidator: Validator | undefined;

/**
 * Compiling the meta-schema costs ~20 ms and loading TypeBox's schema module a few more: both
 * happen only once a schema needs the full check, never for the common keywords below.
 */
function meta(): Validator {
  if (!metaValidator) {
    const Schema = (require("typebox/schema") as { default: typeof SchemaModule }).default;
    const metaSchema = Schema.Meta[META_SCHEMA_ID as keyof typeof Schema.Meta];
    metaValidator = Schema.Compile(metaSchema);
  }
  return metaValidator;
}

const TYPE_NAMES = new Set(["string", "number", "integer", "boolean", "object", "array", "null"]);
const isNonNegativeInteger = (v: unknown): boolean => Number.isInteger(v) && (v as number) >= 0;
const isString = (v: unknown): boolean => typeof v === "string";
const isNumber = (v: unknown): boolean => typeof v === "number" && Number.isFinite(v);
const isUniqueStrings = (v: unknown): boolean => Array.isArray(v) && v.every(isString) && new Set(v).size === v.length;

/**
 * Keywords the fast path fully understands, each with the meta-schema's own rule for its value.
 * Sub-schema keywords are checked recursively by `isSimpleSchema`.
 */
const SCALAR_KEYWORDS: Record<string, (value: unknown) => boolean> = {
  type: (v) =>
    (isString(v) && TYPE_NAMES.has(v as string)) ||
    (Array.isArray(v) && v.length > 0 && v.every((t) => TYPE_NAMES.has(t)) && new Set(v).size === v.length),
  title: isString,
  description: isString,
  $comment: isString,
  format: isString,
  pattern: isString,
  default: () => true,
  examples: Array.isArray,
  const: () => true,
  enum: Array.isArray,
  required: isUniqueStrings,
  minLength: isNonNegativeInteger,
  maxLength: isNonNegativeInteger,
  minItems: isNonNegativeInteger,
  maxItems: isNonNegativeInteger,
  minProperties: isNonNegativeInteger,
  maxProperties: isNonNegativeInteger,
  uniqueItems: (v) => typeof v === "boolean",
  minimum: isNumber,
  maximum: isNumber,
  exclusiveMinimum: isNumber,
  exclusiveMaximum: isNumber,
  multipleOf: (v) => isNumber(v) && (v as number) > 0,
  readOnly: (v) => typeof v === "boolean",
  writeOnly: (v) => typeof v === "boolean",
  deprecated: (v) => typeof v === "boolean",
};

function isSimpleSchema(schema: unknown): boolean {
  if (typeof schema === "boolean") return true;
  if (!isPlainObject(schema)) return false;
  for (const [keyword, value] of Object.entries(schema)) {
    const rule = SCALAR_KEYWORDS[keyword];
    if (rule) {
      if (!rule(value)) return false;
    } else if (keyword === "properties") {
      if (!isPlainObject(value) || !Object.values(value).every(isSimpleSchema)) return false;
    } else if (keyword === "items" || keyword === "additionalProperties") {
      if (!isSimpleSchema(value)) return false;
    } else return false;
  }
  return true;
}

/** Keywords whose values are data, not schemas: a `$ref` inside them means nothing. */
const DATA_KEYWORDS = new Set(["enum", "const", "default", "examples"]);
/** Keywords whose value maps arbitrary names (never keywords) to schemas. */
const SCHEMA_MAPS = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]);

interface Walked {
  refs: { ref: string; path: (string | number)[] }[];
  patterns: { pattern: string; path: (string | number)[] }[];
  anchors: Map<string, Record<string, unknown>>;
  /** Where each schema object sits, for messages about it. */
  places: Map<Record<string, unknown>, (string | number)[]>;
  /** `$id` → the schema that declares it, for references that go through it. */
  ids: Map<string, Record<string, unknown>>;
}

/** Visits a schema, reading keys as keywords only where they are keywords. */
function walkSchema(node: unknown, out: Walked, path: (string | number)[]): void {
  if (Array.isArray(node)) {
    for (const [i, item] of node.entries()) walkSchema(item, out, [...path, i]);
    return;
  }
  if (!isPlainObject(node)) return;
  if (!out.places.has(node)) out.places.set(node, path);
  for (const [key, value] of Object.entries(node)) {
    if (DATA_KEYWORDS.has(key)) continue;
    if (key === "$ref" && typeof value === "string") out.refs.push({ ref: value, path: [...path, key] });
    else if (key === "pattern" && typeof value === "string")
      out.patterns.push({ pattern: value, path: [...path, key] });
    else if ((key === "$anchor" || key === "$dynamicAnchor") && typeof value === "string") out.anchors.set(value, node);
    else if (key === "$id" && typeof value === "string") out.ids.set(value.replace(/#$/, ""), node);
    else if (SCHEMA_MAPS.has(key) && isPlainObject(value)) {
      for (const [name, sub] of Object.entries(value)) walkSchema(sub, out, [...path, key, name]);
    } else if (typeof value === "object") walkSchema(value, out, [...path, key]);
  }
}

/** The schema a JSON pointer names inside `root` (true/false schemas included), or undefined. */
function resolvePointer(root: unknown, pointer: string): unknown {
  if (pointer === "") return root;
  if (!pointer.startsWith("/")) return undefined;
  let node: unknown = root;
  for (const raw of pointer.slice(1).split("/")) {
    let token: string;
    try {
      token = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    } catch {
      return undefined;
    }
    if (Array.isArray(node)) node = node[Number(token)];
    else if (isPlainObject(node)) node = Object.hasOwn(node, token) ? node[token] : undefined;
    else return undefined;
    if (node === undefined) return undefined;
  }
  return typeof node === "boolean" || isPlainObject(node) ? node : undefined;
}

/** What a local `$ref` points at, or why it points at nothing. */
function resolveRef(schema: JsonSchema, ref: string, walked: Walked): { target: unknown } | { problem: string } {
  const hash = ref.indexOf("#");
  const base = hash < 0 ? ref : ref.slice(0, hash);
  const fragment = hash < 0 ? "" : ref.slice(hash + 1);
  const root = base === "" ? schema : walked.ids.get(base);
  if (!root)
    return { problem: `$ref "${ref}" points outside this schema; only local references ("#/$defs/…") can be resolved` };
  const target =
    fragment.startsWith("/") || fragment === "" ? resolvePointer(root, fragment) : walked.anchors.get(fragment);
  return target === undefined ? { problem: `$ref "${ref}" does not resolve to a schema in this document` } : { target };
}

const REF_HINT = 'point it at a schema inside this inputSchema, e.g. "#/$defs/name"';

/** The value at a path inside the schema, for a hint about it. */
function valueAt(schema: unknown, path: readonly (string | number)[]): unknown {
  let node = schema;
  for (const step of path)
    node = isPlainObject(node) || Array.isArray(node) ? (node as Record<string | number, unknown>)[step] : undefined;
  return node;
}

/** Keywords that apply a subschema to the same value (nothing of the input is read on the way). */
const IN_PLACE_LISTS = ["allOf", "anyOf", "oneOf"];
const IN_PLACE_SINGLE = ["not", "if", "then", "else"];

/**
 * A `$ref` chain that comes back to where it started without descending into the value
 * (`$ref: "#"` at the root, two `$defs` that name each other) makes validation recurse forever.
 * Recursion through `properties` or `items` is fine: each step reads a smaller part of the input.
 * Returns the `$ref` that closes the first such loop.
 */
function endlessRef(schema: JsonSchema, walked: Walked): { ref: string; path: (string | number)[] } | undefined {
  const edges = (node: Record<string, unknown>): { next: unknown; ref?: string }[] => {
    const out: { next: unknown; ref?: string }[] = [];
    for (const key of IN_PLACE_LISTS)
      if (Array.isArray(node[key])) for (const sub of node[key] as unknown[]) out.push({ next: sub });
    for (const key of IN_PLACE_SINGLE) if (node[key] !== undefined) out.push({ next: node[key] });
    if (isPlainObject(node.dependentSchemas))
      for (const sub of Object.values(node.dependentSchemas)) out.push({ next: sub });
    if (typeof node.$ref === "string") {
      const resolved = resolveRef(schema, node.$ref, walked);
      if ("target" in resolved) out.push({ next: resolved.target, ref: node.$ref });
    }
    return out;
  };
  const state = new Map<unknown, "open" | "done">();
  // Iterative depth-first search: the schema's size, not its shape, bounds the work.
  for (const start of walked.places.keys()) {
    if (state.has(start)) continue;
    const stack: { node: Record<string, unknown>; next: { next: unknown; ref?: string }[] }[] = [
      { node: start, next: edges(start) },
    ];
    state.set(start, "open");
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const edge = top.next.pop();
      if (!edge) {
        state.set(top.node, "done");
        stack.pop();
        continue;
      }
      if (!isPlainObject(edge.next)) continue;
      const seen = state.get(edge.next);
      if (seen === "open") {
        if (edge.ref !== undefined) return { ref: edge.ref, path: [...(walked.places.get(top.node) ?? []), "$ref"] };
        // A loop closed by an in-place keyword needs a $ref somewhere on it; report that one.
        const closing = stack.find((frame) => typeof frame.node.$ref === "string");
        return {
          ref: String(closing?.node.$ref ?? "#"),
          path: [...(walked.places.get(closing?.node ?? top.node) ?? []), "$ref"],
        };
      }
      if (seen === "done") continue;
      state.set(edge.next, "open");
      stack.push({ node: edge.next, next: edges(edge.next) });
    }
  }
  return undefined;
}

function pointerPath(pointer: string): (string | number)[] {
  return pointer === ""
    ? []
    : pointer
        .slice(1)
        .split("/")
        .map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"))
        .map((p) => (/^\d+$/.test(p) ? Number(p) : p));
}

function describeMetaError(error: { instancePath: string; message: string }, schema: unknown): SchemaProblem {
  const where = error.instancePath === "" ? "the schema" : `inputSchema${error.instancePath.replace(/\//g, ".")}`;
  const path = pointerPath(error.instancePath);
  // The common mistake: a misspelt type name.
  const value = valueAt(schema, path);
  const wrongType =
    path[path.length - 1] === "type"
      ? (Array.isArray(value) ? value : [value]).find((t) => typeof t === "string" && !TYPE_NAMES.has(t))
      : undefined;
  const meant = typeof wrongType === "string" ? closest(wrongType, [...TYPE_NAMES]) : undefined;
  const hint =
    wrongType === undefined
      ? undefined
      : meant
        ? `did you mean "${meant}"?`
        : `use one of: ${[...TYPE_NAMES].join(", ")}`;
  return { message: `${where} ${error.message}`, path, ...(hint && { hint }) };
}

/**
 * Proves a tool's `inputSchema` is a schema TypeBox will enforce as written: valid against the
 * 2020-12 meta-schema (TypeBox compiles an invalid one silently and then accepts everything),
 * every `$ref` resolvable, every `pattern` a valid regular expression, and `type: object`.
 * Schemas built only from common keywords are checked by hand, in microseconds; the rest
 * against the compiled meta-schema.
 */
export function proveInputSchema(schema: unknown): SchemaProof {
  if (!isPlainObject(schema))
    return {
      ok: false,
      problems: [
        {
          message: "inputSchema must be a mapping (a JSON Schema object)",
          hint: "write type: object and the arguments under properties",
          path: [],
        },
      ],
    };
  const problems: SchemaProblem[] = [];
  if (schema.type !== "object")
    problems.push({
      message: "inputSchema must have type: object",
      hint: "tool arguments are a JSON object: write type: object and list them under properties",
      path: schema.type === undefined ? [] : ["type"],
    });
  if (!isSimpleSchema(schema)) {
    const [valid, errors] = meta().Errors(schema);
    if (!valid) {
      // A bad keyword also fails every enclosing schema; report only the deepest place, once.
      const paths = errors.map((e) => e.instancePath);
      const seen = new Set<string>();
      for (const error of errors) {
        const path = error.instancePath;
        if (seen.has(path) || paths.some((other) => other.startsWith(`${path}/`))) continue;
        seen.add(path);
        problems.push(describeMetaError(error, schema));
      }
    }
  }
  const walked: Walked = { refs: [], patterns: [], anchors: new Map(), places: new Map(), ids: new Map() };
  walkSchema(schema, walked, []);
  for (const { ref, path } of walked.refs) {
    const resolved = resolveRef(schema, ref, walked);
    if ("problem" in resolved) problems.push({ message: resolved.problem, hint: REF_HINT, path });
  }
  if (walked.refs.length > 0) {
    const loop = endlessRef(schema, walked);
    if (loop)
      problems.push({
        message: `$ref "${loop.ref}" leads back to itself without reading any part of the arguments, so checking them would never end`,
        hint: "let the loop pass through properties or items",
        path: loop.path,
      });
  }
  for (const { pattern, path } of walked.patterns) {
    try {
      new RegExp(pattern, "u");
    } catch (error) {
      // "Invalid regular expression: /(/: missing )" → "missing )": what the engine objects to.
      const why = error instanceof Error ? error.message.replace(/^.*: /, "") : "";
      problems.push({
        message: `pattern "${pattern}" is not a valid regular expression${why ? `: ${why}` : ""}`,
        hint: "patterns are JavaScript regular expressions with the u flag; escape a literal ( [ { . * + ? with \\",
        path,
      });
    }
  }
  return problems.length === 0 ? { ok: true } : { ok: false, problems };
}
