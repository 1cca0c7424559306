import { describe, expect, test } from "bun:test";
import { argumentProblems, problemLines } from "../../src/invoke/arguments.ts";
import type { JsonSchema } from "../../src/skill/json-schema.ts";

const tool: JsonSchema = {
  type: "object",
  properties: {
    summary: { type: "string", minLength: 3, maxLength: 20 },
    count: { type: "integer", minimum: 1, maximum: 10 },
    mode: { enum: ["a", "b"] },
    code: { type: "string", pattern: "^[A-Z]+$" },
    email: { type: "string", format: "email" },
    ratio: { type: "number", exclusiveMinimum: 0, exclusiveMaximum: 1, multipleOf: 0.25 },
    flag: { const: true },
    note: { type: ["string", "null"] },
    items: {
      type: "array",
      minItems: 1,
      maxItems: 2,
      uniqueItems: true,
      items: {
        type: "object",
        properties: { name: { type: "string" } },
        required: ["name"],
        additionalProperties: false,
      },
    },
  },
  required: ["summary"],
  additionalProperties: false,
};

const problems = (args: unknown, schema: JsonSchema = tool) => problemLines(argumentProblems(schema, args));
const withSummary = (extra: Record<string, unknown>) => ({ summary: "valid", ...extra });

describe("valid arguments", () => {
  test("valid arguments have no problems", () => {
    expect(problems({ summary: "valid" })).toEqual([]);
    expect(
      problems({
        summary: "valid",
        count: 10,
        mode: "b",
        code: "ABC",
        email: "a@b.co",
        ratio: 0.5,
        flag: true,
        note: null,
        items: [{ name: "x" }],
      }),
    ).toEqual([]);
  });

  test("checking the same schema twice gives the same answer", () => {
    expect(problems({})).toEqual(problems({}));
    expect(problems({ summary: "valid" })).toEqual([]);
  });
});

describe("one exact line per problem", () => {
  test("a missing required argument", () => {
    expect(problems({})).toEqual(['Missing required argument: "summary"']);
  });

  test("several missing required arguments, one line each", () => {
    expect(problems({}, { type: "object", required: ["a", "b"] })).toEqual([
      'Missing required argument: "a"',
      'Missing required argument: "b"',
    ]);
  });

  test("a wrong type", () => {
    expect(problems(withSummary({ count: 1.5 }))).toEqual(['Argument "count" must be an integer']);
    expect(problems(withSummary({ count: "3" }))).toEqual(['Argument "count" must be an integer']);
    expect(problems({ summary: 5 })).toEqual(['Argument "summary" must be a string']);
  });

  test("a union type names every allowed type", () => {
    expect(problems(withSummary({ note: 1 }))).toEqual(['Argument "note" must be a string or null']);
  });

  test("an enum lists the allowed values", () => {
    expect(problems(withSummary({ mode: "c" }))).toEqual(['Argument "mode" must be one of: a, b']);
  });

  test("an enum of non-strings lists them as JSON", () => {
    const schema: JsonSchema = { type: "object", properties: { m: { enum: [1, "a", null, { x: 1 }] } } };
    expect(problems({ m: 2 }, schema)).toEqual(['Argument "m" must be one of: 1, a, null, {"x":1}']);
  });

  test("a const names the one allowed value", () => {
    expect(problems(withSummary({ flag: false }))).toEqual(['Argument "flag" must be true']);
  });

  test("a pattern mismatch quotes the pattern", () => {
    expect(problems(withSummary({ code: "abc" }))).toEqual(['Argument "code" must match the pattern ^[A-Z]+$']);
  });

  test("formats are enforced", () => {
    expect(problems(withSummary({ email: "nope" }))).toEqual(['Argument "email" must be a valid email']);
    const formats: [string, string][] = [
      ["date", "2024-13-45"],
      ["uri", "not a uri"],
      ["uuid", "x"],
      ["date-time", "yesterday"],
    ];
    for (const [format, value] of formats) {
      expect(problems({ a: value }, { type: "object", properties: { a: { type: "string", format } } })).toEqual([
        `Argument "a" must be a valid ${format}`,
      ]);
    }
  });

  test("valid formatted values pass", () => {
    const schema: JsonSchema = {
      type: "object",
      properties: { d: { type: "string", format: "date-time" }, e: { type: "string", format: "email" } },
    };
    expect(problems({ d: "2024-01-01T00:00:00Z", e: "a@b.co" }, schema)).toEqual([]);
  });

  test("string length bounds", () => {
    expect(problems({ summary: "ab" })).toEqual(['Argument "summary" must be at least 3 characters long']);
    expect(problems({ summary: "x".repeat(21) })).toEqual(['Argument "summary" must be at most 20 characters long']);
    expect(problems({ a: "" }, { type: "object", properties: { a: { type: "string", minLength: 1 } } })).toEqual([
      'Argument "a" must be at least 1 character long',
    ]);
  });

  test("numeric bounds, inclusive and exclusive", () => {
    expect(problems(withSummary({ count: 0 }))).toEqual(['Argument "count" must be >= 1']);
    expect(problems(withSummary({ count: 11 }))).toEqual(['Argument "count" must be <= 10']);
    expect(problems(withSummary({ ratio: 0 }))).toEqual(['Argument "ratio" must be > 0']);
    expect(problems(withSummary({ ratio: 1 }))).toEqual(['Argument "ratio" must be < 1']);
    expect(problems(withSummary({ ratio: 0.3 }))).toEqual(['Argument "ratio" must be a multiple of 0.25']);
  });

  test("array size and uniqueness", () => {
    expect(problems(withSummary({ items: [] }))).toEqual(['Argument "items" must have at least 1 item']);
    expect(problems(withSummary({ items: [{ name: "a" }, { name: "b" }, { name: "c" }] }))).toEqual([
      'Argument "items" must have at most 2 items',
    ]);
    expect(problems(withSummary({ items: [{ name: "a" }, { name: "a" }] }))).toEqual([
      'Argument "items" must not contain duplicate items',
    ]);
  });
});

describe("paths to nested arguments", () => {
  test("a problem inside an array item names the item and field", () => {
    expect(problems(withSummary({ items: [{ name: 1 }] }))).toEqual(['Argument "items[0].name" must be a string']);
  });

  test("a missing field and an unexpected field in array items name their paths", () => {
    expect(problems(withSummary({ items: [{}, { name: "x", extra: 1 }] }))).toEqual([
      'Missing required argument: "items[0].name"',
      'Unexpected argument "items[1].extra": the tool does not accept it',
    ]);
  });

  test("nested arrays are written with consecutive indexes", () => {
    const schema: JsonSchema = {
      type: "object",
      properties: { grid: { type: "array", items: { type: "array", items: { type: "integer" } } } },
    };
    expect(problems({ grid: [[1], [2, "x"]] }, schema)).toEqual(['Argument "grid[1][1]" must be an integer']);
  });

  test("nested objects are written with dots", () => {
    const schema: JsonSchema = {
      type: "object",
      properties: {
        o: {
          type: "object",
          required: ["deep"],
          properties: { deep: { type: "object", properties: { x: { type: "string" } } } },
        },
      },
    };
    expect(problems({ o: {} }, schema)).toEqual(['Missing required argument: "o.deep"']);
    expect(problems({ o: { deep: { x: 1 } } }, schema)).toEqual(['Argument "o.deep.x" must be a string']);
  });

  test("property names with / and ~ are unescaped from the JSON pointer", () => {
    const schema: JsonSchema = { type: "object", properties: { "a/b": { type: "string" }, "c~d": { type: "string" } } };
    expect(problems({ "a/b": 1, "c~d": 1 }, schema)).toEqual([
      'Argument "a/b" must be a string',
      'Argument "c~d" must be a string',
    ]);
  });
});

describe("additionalProperties: false", () => {
  test("each unexpected argument is one line", () => {
    expect(problems(withSummary({ x: 1, y: 2 }))).toEqual([
      'Unexpected argument "x": the tool does not accept it',
      'Unexpected argument "y": the tool does not accept it',
    ]);
  });

  test("an unexpected argument and a missing one are both reported, without a 'schema is false' echo", () => {
    const found = problems({ x: 1 });
    expect(found).toEqual([
      'Missing required argument: "summary"',
      'Unexpected argument "x": the tool does not accept it',
    ]);
    expect(found.join("\n")).not.toContain("schema is false");
  });

  test("patternProperties count as expected", () => {
    const schema: JsonSchema = {
      type: "object",
      patternProperties: { "^x": { type: "string" } },
      additionalProperties: false,
    };
    expect(problems({ x1: "s", y: 1 }, schema)).toEqual(['Unexpected argument "y": the tool does not accept it']);
  });

  test("a nested additionalProperties: false names the nested path", () => {
    const schema: JsonSchema = { type: "object", properties: { o: { type: "object", additionalProperties: false } } };
    expect(problems({ o: { z: 1 } }, schema)).toEqual(['Unexpected argument "o.z": the tool does not accept it']);
  });
});

describe("$ref targets", () => {
  const schema: JsonSchema = {
    type: "object",
    $defs: {
      count: { type: "integer", minimum: 0 },
      person: { type: "object", required: ["name"], properties: { name: { type: "string" } } },
    },
    properties: {
      n: { $ref: "#/$defs/count" },
      who: { $ref: "#/$defs/person" },
      people: { type: "array", items: { $ref: "#/$defs/person" } },
    },
  };

  test("a $ref target's type and bounds are enforced", () => {
    expect(problems({ n: "x" }, schema)).toEqual(['Argument "n" must be an integer']);
    expect(problems({ n: -1 }, schema)).toEqual(['Argument "n" must be >= 0']);
  });

  test("a $ref target's required fields and nested types are enforced", () => {
    expect(problems({ who: {} }, schema)).toEqual(['Missing required argument: "who.name"']);
    expect(problems({ people: [{ name: "a" }, { name: 2 }] }, schema)).toEqual([
      'Argument "people[1].name" must be a string',
    ]);
  });

  test("valid values through $ref pass", () => {
    expect(problems({ n: 3, who: { name: "a" }, people: [] }, schema)).toEqual([]);
  });

  test("a $ref to an $anchor is enforced", () => {
    const anchored: JsonSchema = {
      type: "object",
      $defs: { n: { $anchor: "num", type: "number" } },
      properties: { a: { $ref: "#num" } },
    };
    expect(problems({ a: "x" }, anchored)).toEqual(['Argument "a" must be a number']);
  });
});

describe("arguments that are not an object", () => {
  test("null, arrays, strings and undefined are one line about the whole", () => {
    for (const args of [null, [], "str", 42, undefined]) {
      expect(problems(args)).toEqual(["Arguments must be an object"]);
    }
  });
});

describe("no duplicate lines", () => {
  test("the same requirement from two subschemas is reported once", () => {
    const schema: JsonSchema = { type: "object", allOf: [{ required: ["a"] }, { required: ["a"] }] };
    expect(problems({}, schema)).toEqual(['Missing required argument: "a"']);
  });

  test("every result is free of repeated lines", () => {
    const inputs: unknown[] = [
      {},
      { x: 1 },
      withSummary({ items: [{}, {}, {}] }),
      withSummary({ count: "x", mode: 1, ratio: 2, items: [{ name: 1, a: 1 }] }),
    ];
    for (const args of inputs) {
      const found = problems(args);
      expect(found.length).toBeGreaterThan(0);
      expect(new Set(found).size).toBe(found.length);
    }
  });
});

describe("wording details", () => {
  test("maxLength 1 is singular: 'at most 1 character long'", () => {
    expect(problems({ a: "ab" }, { type: "object", properties: { a: { type: "string", maxLength: 1 } } })).toEqual([
      'Argument "a" must be at most 1 character long',
    ]);
  });
  test("maxItems 1 is singular: 'at most 1 item'", () => {
    expect(problems({ a: [1, 2] }, { type: "object", properties: { a: { type: "array", maxItems: 1 } } })).toEqual([
      'Argument "a" must have at most 1 item',
    ]);
  });
  test("minProperties and maxProperties in words, singular for 1", () => {
    const schema = { type: "object", properties: { a: { type: "object", minProperties: 1, maxProperties: 2 } } };
    expect(problems({ a: {} }, schema)).toEqual(['Argument "a" must have at least 1 property']);
    expect(problems({ a: { x: 1, y: 2, z: 3 } }, schema)).toEqual(['Argument "a" must have at most 2 properties']);
  });
  test("an additionalProperties schema (not false) does not call a wrongly typed extra argument unexpected", () => {
    expect(problems({ a: 1 }, { type: "object", additionalProperties: { type: "string" } })).toEqual([
      'Argument "a" must be a string',
    ]);
  });
});

describe("schemas too wide for TypeBox's compiler (found by the fuzzer: every call failed with -32603 'Maximum call stack size exceeded')", () => {
  const wide = 20_000;
  // CPU-heavy (~0.5 s on an idle 2-core machine): its own timeout, with room for a busy machine.
  test("an enum of 20,000 values checks arguments like a short one", () => {
    const schema: JsonSchema = {
      type: "object",
      properties: { s: { type: "string", enum: Array.from({ length: wide }, (_, i) => `e${i}`) } },
    };
    expect(problems({ s: `e${wide - 1}` }, schema)).toEqual([]);
    expect(problems({ s: "nope" }, schema)).toEqual([
      expect.stringMatching(/^Argument "s" must be one of: e0, e1, e2, /),
    ]);
  }, 60_000);

  // CPU-heavy (~4 s on an idle 2-core machine): its own timeout, with room for a busy machine.
  test("20,000 properties and 20,000 required names", () => {
    const names = Array.from({ length: wide }, (_, i) => `p${i}`);
    const schema: JsonSchema = {
      type: "object",
      properties: Object.fromEntries(names.map((n) => [n, { type: "integer" }])),
      required: names,
    };
    expect(problems(Object.fromEntries(names.map((n) => [n, 1])), schema)).toEqual([]);
    const missing = problems({}, schema);
    expect(missing[0]).toBe('Missing required argument: "p0"');
    expect(problems({ ...Object.fromEntries(names.map((n) => [n, 1])), p5: "x" }, schema)).toEqual([
      'Argument "p5" must be an integer',
    ]);
  }, 120_000);
});

describe("each problem names the argument it is about", () => {
  test("path: the argument's place (array indices as numbers), beside its line", () => {
    expect(argumentProblems(tool, { summary: "ab", items: [{}], extra: 1 })).toEqual([
      { path: ["extra"], message: 'Unexpected argument "extra": the tool does not accept it' },
      { path: ["summary"], message: 'Argument "summary" must be at least 3 characters long' },
      { path: ["items", 0, "name"], message: 'Missing required argument: "items[0].name"' },
    ]);
    expect(argumentProblems(tool, "text")).toEqual([{ path: [], message: "Arguments must be an object" }]);
  });
});
