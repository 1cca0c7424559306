import { describe, expect, test } from "bun:test";
import Schema from "typebox/schema";
import { argumentProblems, problemLines } from "../../src/invoke/arguments.ts";
import { proveInputSchema } from "../../src/skill/schema-proof.ts";

const META = Schema.Meta["https://json-schema.org/draft/2020-12/schema" as keyof typeof Schema.Meta];
const metaValidator = Schema.Compile(META);
const metaAccepts = (schema: unknown): boolean => metaValidator.Check(schema);

/** An unknown keyword is allowed by the meta-schema but not by the hand-written fast path. */
const forceMetaPath = (schema: Record<string, unknown>) => ({ ...schema, "x-force-meta-path": true });

function problems(schema: unknown): string[] {
  const proof = proveInputSchema(schema);
  return proof.ok ? [] : proof.problems.map((p) => p.message);
}

const obj = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  type: "object",
  properties,
  ...extra,
});

describe("schemas that are proven", () => {
  test("an empty object schema is valid", () => {
    expect(proveInputSchema({ type: "object" })).toEqual({ ok: true });
  });

  test("a simple schema with common keywords is valid", () => {
    const schema = obj(
      {
        summary: { type: "string", description: "One line", minLength: 1, maxLength: 200, pattern: "^\\S" },
        count: { type: "integer", minimum: 0, maximum: 10, multipleOf: 1, default: 3 },
        mode: { enum: ["fast", "slow"], title: "Mode" },
        tags: { type: "array", items: { type: "string", format: "uri" }, minItems: 1, uniqueItems: true },
        nullable: { type: ["string", "null"], examples: ["x", null] },
        fixed: { const: { any: ["data"] }, readOnly: true, deprecated: false },
      },
      { required: ["summary"], additionalProperties: false, $comment: "tool args" },
    );
    expect(proveInputSchema(schema)).toEqual({ ok: true });
  });

  test("a schema using oneOf, anyOf, allOf and not is valid", () => {
    const schema = obj({
      target: { oneOf: [{ type: "string" }, { type: "integer", minimum: 1 }] },
      other: { anyOf: [{ type: "null" }, { allOf: [{ type: "string" }, { not: { const: "" } }] }] },
    });
    expect(proveInputSchema(schema)).toEqual({ ok: true });
  });

  test("local $ref into $defs is valid, including escaped pointer tokens", () => {
    const schema = obj(
      {
        a: { $ref: "#/$defs/name" },
        b: { $ref: "#/$defs/a~1b" },
        c: { $ref: "#/$defs/c~0d" },
        d: { $ref: "#/$defs/with%20space" },
      },
      { $defs: { name: { type: "string" }, "a/b": { type: "integer" }, "c~d": true, "with space": {} } },
    );
    expect(proveInputSchema(schema)).toEqual({ ok: true });
  });

  test("$ref to an $anchor, to the root, and through the schema's own $id is valid", () => {
    expect(
      proveInputSchema(obj({ a: { $ref: "#name" } }, { $defs: { n: { $anchor: "name", type: "string" } } })),
    ).toEqual({ ok: true });
    expect(proveInputSchema(obj({ self: { $ref: "#" } }))).toEqual({ ok: true });
    const withId = obj(
      { a: { $ref: "https://example.com/tool#/$defs/n" } },
      { $id: "https://example.com/tool", $defs: { n: { type: "string" } } },
    );
    expect(proveInputSchema(withId)).toEqual({ ok: true });
  });

  test("a recursive schema is valid", () => {
    const tree = obj(
      { node: { $ref: "#/$defs/node" } },
      {
        $defs: {
          node: { type: "object", properties: { children: { type: "array", items: { $ref: "#/$defs/node" } } } },
        },
      },
    );
    expect(proveInputSchema(tree)).toEqual({ ok: true });
  });

  test("a Unicode property pattern is a valid regular expression", () => {
    expect(proveInputSchema(obj({ name: { type: "string", pattern: "^\\p{L}+$" } }))).toEqual({ ok: true });
  });

  test("$ref-like and pattern-like keys inside data keywords are ignored", () => {
    const schema = obj({
      a: {
        enum: [{ $ref: "#/nowhere" }],
        default: { pattern: "(" },
        examples: [{ $ref: "x.json" }],
        const: { pattern: "[" },
      },
    });
    expect(proveInputSchema(schema)).toEqual({ ok: true });
  });
});

describe("schemas that are rejected", () => {
  test("a misspelled type is rejected naming its path", () => {
    const found = problems(obj({ a: { type: "strnig" } }));
    expect(found).toHaveLength(1);
    expect(found[0]).toStartWith("inputSchema.properties.a.type ");
  });

  test("a non-integer minLength is rejected naming its path", () => {
    const found = problems(obj({ title: { type: "string", minLength: "abc" } }));
    expect(found).toHaveLength(1);
    expect(found[0]).toStartWith("inputSchema.properties.title.minLength ");
    expect(found[0]).toContain("integer");
  });

  test("a bad keyword deep inside items and additionalProperties is reported once at its own path", () => {
    expect(problems(obj({ list: { type: "array", items: { type: "strng" } } }))).toEqual([
      expect.stringMatching(/^inputSchema\.properties\.list\.items\.type /),
    ]);
    expect(problems({ type: "object", additionalProperties: { maxLength: -1 } })).toEqual([
      expect.stringMatching(/^inputSchema\.additionalProperties\.maxLength /),
    ]);
  });

  test("a bad keyword in a complex schema is found by the meta-schema path", () => {
    const found = problems(obj({ a: { oneOf: [{ type: "string" }] } }, { $defs: { x: { type: "bogus" } } }));
    expect(found).toEqual([expect.stringMatching(/^inputSchema\.\$defs\.x\.type /)]);
  });

  test("each independent mistake is reported", () => {
    const found = problems(obj({ a: { type: "strnig" }, b: { minLength: -1 } }));
    expect(found.some((p) => p.startsWith("inputSchema.properties.a.type "))).toBe(true);
    expect(found.some((p) => p.startsWith("inputSchema.properties.b.minLength "))).toBe(true);
    expect(new Set(found).size).toBe(found.length);
  });

  test("malformed keyword values are rejected", () => {
    const bad: [unknown, string][] = [
      [{ type: "object", required: "a" }, "inputSchema.required "],
      [{ type: "object", required: ["a", "a"] }, "inputSchema.required "],
      [obj({ a: { multipleOf: 0 } }), "inputSchema.properties.a.multipleOf "],
      [obj({ a: { maxLength: 1.5 } }), "inputSchema.properties.a.maxLength "],
      [obj({ a: { minimum: "1" } }), "inputSchema.properties.a.minimum "],
      [obj({ a: { type: ["string", "string"] } }), "inputSchema.properties.a.type "],
      [obj({ a: 5 }), "inputSchema.properties.a "],
      [{ type: "object", properties: [] }, "inputSchema.properties "],
    ];
    for (const [schema, path] of bad) {
      const found = problems(schema);
      expect({ schema, found: found.some((p) => p.startsWith(path)) }).toEqual({ schema, found: true });
    }
  });

  test("an unresolvable local $ref is rejected", () => {
    expect(problems(obj({ a: { $ref: "#/$defs/missing" } }))).toEqual([
      '$ref "#/$defs/missing" does not resolve to a schema in this document',
    ]);
    expect(problems(obj({ a: { $ref: "#nope" } }))).toEqual([
      '$ref "#nope" does not resolve to a schema in this document',
    ]);
  });

  test("a $ref to a non-schema value is rejected", () => {
    expect(problems(obj({ x: { type: "string" }, a: { $ref: "#/properties/x/type" } }))).toEqual([
      '$ref "#/properties/x/type" does not resolve to a schema in this document',
    ]);
  });

  test("an external $ref is rejected", () => {
    for (const ref of ["https://example.com/s.json", "other.json#/x", "defs.yaml"]) {
      const found = problems(obj({ a: { $ref: ref } }));
      expect(found).toHaveLength(1);
      expect(found[0]).toContain(`$ref "${ref}" points outside this schema`);
    }
  });

  test("an invalid pattern is rejected, also when hidden in a complex schema", () => {
    expect(
      problems(obj({ a: { type: "string", pattern: "([a-z" } })).some((p) =>
        p.startsWith('pattern "([a-z" is not a valid regular expression: '),
      ),
    ).toBe(true);
    expect(
      problems(obj({ a: { anyOf: [{ type: "string", pattern: "\\a" }] } })).some((p) =>
        p.startsWith('pattern "\\a" is not a valid regular expression: '),
      ),
    ).toBe(true);
  });

  test("a schema whose type is not object is rejected", () => {
    for (const schema of [{ type: "array" }, { type: "string" }, { properties: {} }, { type: ["object", "null"] }]) {
      expect(problems(schema)).toContain("inputSchema must have type: object");
    }
  });

  test("a non-mapping is rejected", () => {
    for (const schema of ["a string", 42, null, undefined, [], [{ type: "object" }], true]) {
      expect(proveInputSchema(schema)).toEqual({
        ok: false,
        problems: [
          {
            message: "inputSchema must be a mapping (a JSON Schema object)",
            hint: "write type: object and the arguments under properties",
            path: [],
          },
        ],
      });
    }
  });
});

describe("the fast path agrees with the full meta-schema", () => {
  /** Valid and invalid values for each keyword the fast path checks by hand. */
  const values: Record<string, unknown[]> = {
    type: ["string", "integer", ["string", "null"], "strnig", [], ["string", "string"], 3],
    title: ["T", 1],
    description: ["d", null],
    $comment: ["c", {}],
    format: ["email", 1],
    pattern: ["^a+$", 5],
    default: [1, null, { a: 1 }],
    examples: [[1], "x"],
    const: [1, "x", null],
    enum: [["a", "b"], [], "a"],
    required: [["a"], ["a", "a"], "a", [1]],
    minLength: [0, 3, -1, 1.5, "abc"],
    maxLength: [10, -2],
    minItems: [1, "1"],
    maxItems: [2, 2.5],
    minProperties: [0, -1],
    maxProperties: [3, "x"],
    uniqueItems: [true, "yes"],
    minimum: [0, -1.5, "1"],
    maximum: [10, null],
    exclusiveMinimum: [0, true],
    exclusiveMaximum: [1, "1"],
    multipleOf: [2, 0.5, 0, -1],
    readOnly: [true, 1],
    writeOnly: [false, "no"],
    deprecated: [true, 0],
  };
  const placements: ((s: Record<string, unknown>) => Record<string, unknown>)[] = [
    (s) => obj({ a: s }),
    (s) => obj({ list: { type: "array", items: s } }),
    (s) => ({ type: "object", additionalProperties: s }),
    (s) => obj({ a: obj({ b: s }) }),
  ];
  const schemas = Object.entries(values).flatMap(([keyword, vs]) =>
    vs.flatMap((v) => placements.map((place) => place({ [keyword]: v }))),
  );

  test("the compiled meta-schema validator is TypeBox's own Schema.Check", () => {
    for (const schema of [
      obj({ a: { type: "string" } }),
      obj({ a: { type: "strnig" } }),
      obj({ a: { minLength: "abc" } }),
    ]) {
      expect(metaAccepts(schema)).toBe(Schema.Check(META, schema));
    }
  });

  test("the sample covers both valid and invalid schemas", () => {
    expect(schemas.filter(metaAccepts).length).toBeGreaterThan(100);
    expect(schemas.filter((s) => !metaAccepts(s)).length).toBeGreaterThan(100);
  });

  test("for every sampled schema the fast path, the forced meta path and TypeBox's meta-schema agree", () => {
    for (const schema of schemas) {
      const expected = metaAccepts(schema);
      expect({ schema, fast: proveInputSchema(schema).ok }).toEqual({ schema, fast: expected });
      expect({ schema, meta: proveInputSchema(forceMetaPath(schema)).ok }).toEqual({ schema, meta: expected });
    }
  });

  test("both paths name the same problem for the same mistake", () => {
    for (const schema of schemas.filter((s) => !metaAccepts(s))) {
      const fast = problems(schema);
      const full = problems(forceMetaPath(schema));
      expect({ schema, fast }).toEqual({ schema, fast: full });
    }
  });

  test("complex valid schemas (no $ref problems) are accepted exactly when the meta-schema accepts them", () => {
    const complex = [
      obj({ a: { oneOf: [{ type: "string" }, { type: "number" }] } }),
      obj({ a: { $ref: "#/$defs/n" } }, { $defs: { n: { type: "string" } } }),
      // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then/else keywords, not a thenable.
      obj({ a: { if: { type: "string" }, then: { minLength: 1 }, else: { type: "number" } } }),
      obj({ a: { type: "object", patternProperties: { "^x-": { type: "string" } }, propertyNames: { maxLength: 5 } } }),
      obj({ a: { type: "array", prefixItems: [{ type: "string" }], items: false, contains: { const: 1 } } }),
      obj({ a: { dependentRequired: { b: ["c"] } } }),
      obj({ a: { oneOf: "string" } }),
      obj({ a: { allOf: [] } }),
      obj({ a: { prefixItems: {} } }),
      obj({ a: { $defs: { n: { type: "bogus" } } } }),
    ];
    for (const schema of complex) {
      expect({ schema, ok: proveInputSchema(schema).ok }).toEqual({ schema, ok: metaAccepts(schema) });
    }
    expect(complex.filter((s) => !metaAccepts(s)).length).toBeGreaterThanOrEqual(3);
  });
});

/**
 * Schemas TypeBox would compile and then misbehave on at every call (a SyntaxError, or "schema
 * is false" for any value): the proof must reject them at load.
 */
describe("problems hidden behind names and ids", () => {
  const hiddenPattern = obj({ default: { type: "string", pattern: "(" } });
  const hiddenRef = obj({ enum: { $ref: "#/$defs/missing" } });
  const selfIdMissing = obj(
    { a: { $ref: "https://example.com/tool#/$defs/missing" } },
    { $id: "https://example.com/tool" },
  );

  test("the repro schemas really break argument checking", () => {
    expect(() => argumentProblems(hiddenPattern, { default: "x" })).toThrow();
    expect(problemLines(argumentProblems(hiddenRef, { enum: "anything" }))).toEqual([
      'Argument "enum" schema is false',
    ]);
    expect(problemLines(argumentProblems(selfIdMissing, { a: "anything" }))).toEqual(['Argument "a" schema is false']);
  });

  test("an invalid pattern under a property named like a data keyword (default) is rejected", () => {
    expect(problems(hiddenPattern).some((p) => p.startsWith('pattern "(" is not a valid regular expression'))).toBe(
      true,
    );
  });
  test("an unresolvable $ref under a property named like a data keyword (enum) is rejected", () => {
    expect(problems(hiddenRef)).toContain('$ref "#/$defs/missing" does not resolve to a schema in this document');
  });
  test("a $ref through the schema's own $id to a missing fragment is rejected", () => {
    expect(proveInputSchema(selfIdMissing).ok).toBe(false);
  });
});
