/** Typos of JSON Schema keywords in a skill's schema (`requried`), which JSON Schema would silently ignore. */
import { closest } from "../suggest.ts";
import { isPlainObject } from "./json-schema.ts";

/** Every keyword of JSON Schema 2020-12, plus the draft-07 ones people still write. */
const KEYWORDS = [
  "$schema",
  "$id",
  "$ref",
  "$anchor",
  "$dynamicRef",
  "$dynamicAnchor",
  "$vocabulary",
  "$comment",
  "$defs",
  "definitions",
  "type",
  "enum",
  "const",
  "multipleOf",
  "maximum",
  "exclusiveMaximum",
  "minimum",
  "exclusiveMinimum",
  "maxLength",
  "minLength",
  "pattern",
  "maxItems",
  "minItems",
  "uniqueItems",
  "maxContains",
  "minContains",
  "maxProperties",
  "minProperties",
  "required",
  "dependentRequired",
  "title",
  "description",
  "default",
  "deprecated",
  "readOnly",
  "writeOnly",
  "examples",
  "allOf",
  "anyOf",
  "oneOf",
  "not",
  "if",
  "then",
  "else",
  "dependentSchemas",
  "prefixItems",
  "items",
  "contains",
  "properties",
  "patternProperties",
  "additionalProperties",
  "propertyNames",
  "unevaluatedItems",
  "unevaluatedProperties",
  "format",
  "contentEncoding",
  "contentMediaType",
  "contentSchema",
  "dependencies",
  "additionalItems",
];
const KNOWN = new Set(KEYWORDS);

/** Keywords whose value is data, not a schema. */
const DATA = new Set(["enum", "const", "default", "examples", "required", "dependentRequired", "type"]);
/** Keywords whose value maps names (never keywords) to schemas. */
const NAMED = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]);

export interface UnknownKeyword {
  keyword: string;
  /** The keyword it most likely meant. */
  meant: string;
  path: (string | number)[];
}

/**
 * Keys of a schema that are not keywords but are one typo away from one (`requried`,
 * `properites`). JSON Schema ignores unknown keys, so such a typo silently drops a rule.
 * Keys with no close keyword (`x-order`, annotations) are left alone.
 */
export function unknownSchemaKeywords(schema: unknown): UnknownKeyword[] {
  const found: UnknownKeyword[] = [];
  const walk = (node: unknown, path: (string | number)[], depth: number): void => {
    if (depth > 64) return;
    if (Array.isArray(node)) {
      for (const [i, item] of node.entries()) walk(item, [...path, i], depth + 1);
      return;
    }
    if (!isPlainObject(node)) return;
    for (const [key, value] of Object.entries(node)) {
      if (!KNOWN.has(key)) {
        const meant = closest(key, KEYWORDS);
        if (meant) found.push({ keyword: key, meant, path: [...path, key] });
        continue;
      }
      if (DATA.has(key)) continue;
      if (NAMED.has(key) && isPlainObject(value)) {
        for (const [name, sub] of Object.entries(value)) walk(sub, [...path, key, name], depth + 1);
      } else if (typeof value === "object") walk(value, [...path, key], depth + 1);
    }
  };
  walk(schema, [], 0);
  return found;
}
