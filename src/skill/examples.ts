/** A skill's inline examples read and checked, from a YAML skill's `examples:` or a folder's `examples.yaml`. */
import { type Findings, kindOf, unknownKeys } from "./findings.ts";
import { isPlainObject } from "./json-schema.ts";
import type { SkillExample } from "./skill.ts";

export const EXAMPLE_FIELDS = ["arguments", "expect", "contains", "error"] as const;

/**
 * Inline examples, as a YAML skill's `examples:` field or an Agent Skills folder's `examples.yaml`
 * hold them: `path` is where the list sits in its document (`["examples"]`, or `[]` for a file
 * that is the list itself).
 */
export function readExamples(
  f: Findings,
  value: unknown,
  at: readonly (string | number)[] = ["examples"],
): SkillExample[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    f.error(
      "field-type",
      `${at.length === 0 ? "the examples file" : `"${at.join(".")}"`} must be a list, not ${kindOf(value)}`,
      "write one `- arguments: …` item per example",
      f.value(at),
    );
    return [];
  }
  const examples: SkillExample[] = [];
  value.forEach((item, i) => {
    const path = [...at, i];
    if (!isPlainObject(item)) {
      f.error(
        "field-type",
        `example ${i + 1} must be a mapping, not ${kindOf(item)}`,
        "write `- arguments: {…}` with expect, contains or error",
        () => f.value(path),
      );
      return;
    }
    unknownKeys(f, item, EXAMPLE_FIELDS, path, ` in example ${i + 1}`);
    const unknown = Object.keys(item).filter((key) => !(EXAMPLE_FIELDS as readonly string[]).includes(key));
    const example: SkillExample = unknown.length > 0 ? { unknownFields: unknown } : {};
    if (item.arguments !== undefined && item.arguments !== null) {
      if (isPlainObject(item.arguments)) example.arguments = item.arguments;
      else
        f.error(
          "field-type",
          `"arguments" of example ${i + 1} must be a mapping of argument names to values`,
          "e.g. `arguments: { who: Ada }`",
          () => f.value([...path, "arguments"]),
        );
    }
    for (const key of ["expect", "error"] as const) {
      const v = item[key];
      if (v === undefined) continue;
      if (typeof v === "string") example[key] = v;
      else
        f.error(
          "field-type",
          `"${key}" of example ${i + 1} must be text, not ${kindOf(v)}`,
          "quote it, or write it as a block: `|` then indented lines",
          () => f.value([...path, key]),
        );
    }
    if (item.contains !== undefined) {
      if (Array.isArray(item.contains) && item.contains.every((v) => typeof v === "string"))
        example.contains = item.contains as string[];
      else
        f.error(
          "field-type",
          `"contains" of example ${i + 1} must be a list of text`,
          'e.g. `contains: ["a phrase", "another"]`',
          () => f.value([...path, "contains"]),
        );
    }
    examples.push(example);
  });
  return examples;
}
