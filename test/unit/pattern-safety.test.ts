import { describe, expect, test } from "bun:test";
import { needsGuard, patternsOf, provenSafe } from "../../src/invoke/pattern-safety.ts";

describe("which patterns run on the request thread", () => {
  test("patterns every input matches one way are proven safe", () => {
    for (const p of [
      "^[A-Z]+-[0-9]+$",
      "^[a-z0-9]+(-[a-z0-9]+)*$",
      String.raw`^\d{4}-\d{2}-\d{2}$`,
      String.raw`^https?://\S+$`,
    ]) {
      expect({ p, safe: provenSafe(p) }).toEqual({ p, safe: true });
    }
  });

  test("patterns with nested or overlapping repetition are not (they are guarded)", () => {
    for (const p of ["^(a+)+$", "^(a|a)*$", String.raw`^(\w+\s?)*$`]) {
      expect({ p, safe: provenSafe(p) }).toEqual({ p, safe: false });
    }
  });

  test("a pattern the detector cannot prove within its small budget is not proven safe", () => {
    expect(provenSafe("^(a|aa|aaa|aaaa)*(b|bb)*c$")).toBe(false);
  });

  test("every pattern a schema runs is found: pattern keywords and patternProperties keys, not data", () => {
    const found = patternsOf({
      type: "object",
      properties: { a: { pattern: "x" } },
      patternProperties: { "^y+$": {} },
      enum: [{ pattern: "data" }],
    });
    expect(found.sort()).toEqual(["^y+$", "x"]);
  });

  test("a schema is guarded when any of its patterns is not proven safe", () => {
    expect(needsGuard({ type: "object", properties: { a: { type: "string", pattern: "^[a-z]+$" } } })).toBe(false);
    expect(needsGuard({ type: "object", properties: { a: { type: "array", items: { pattern: "^(a+)+$" } } } })).toBe(
      true,
    );
    expect(needsGuard({ type: "object", patternProperties: { "^(x|x)*$": { type: "string" } } })).toBe(true);
  });
});
