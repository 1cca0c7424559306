import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Guard from "typebox/guard";
import SchemaModule from "typebox/schema";
import { configBlockSchemas, configChecksSource, GENERATED_FILE, GUARD_HELPERS } from "../../script/config-checks.ts";
import { CONFIG_CHECKS } from "../../src/config/config-checks.generated.ts";

/** Values of every JSON type, including the edges the config schemas draw lines at. */
const LEAVES: unknown[] = [
  null,
  true,
  false,
  0,
  1,
  -1,
  2.5,
  3,
  40,
  499,
  500,
  36_500,
  36_501,
  10_001,
  "",
  " ",
  "off",
  "on",
  "auto",
  "high",
  "never",
  "remote",
  "tools",
  "x",
  "./usage.db",
  `sha256:${"a".repeat(64)}`,
  `sha256:${"A".repeat(64)}`,
  [],
  ["beta"],
  ["beta", 3],
  {},
];

/** A seeded generator, so a failure names a value that fails again. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

/** The property names a schema mentions anywhere, and one it does not. */
function keysOf(schema: unknown, into = new Set<string>(["unknownKey"])): Set<string> {
  if (Array.isArray(schema)) for (const item of schema) keysOf(item, into);
  else if (typeof schema === "object" && schema !== null)
    for (const [key, value] of Object.entries(schema)) {
      if (key === "properties") for (const name of Object.keys(value as object)) into.add(name);
      keysOf(value, into);
    }
  return into;
}

function valueFor(keys: readonly string[], next: () => number, depth: number): unknown {
  const roll = next();
  if (depth > 2 || roll < 0.55) return LEAVES[Math.floor(next() * LEAVES.length)];
  if (roll < 0.7) return Array.from({ length: Math.floor(next() * 3) }, () => valueFor(keys, next, depth + 1));
  const value: Record<string, unknown> = {};
  for (let i = Math.floor(next() * 4); i > 0; i--)
    value[keys[Math.floor(next() * keys.length)]!] = valueFor(keys, next, depth + 1);
  return value;
}

describe("config checks built ahead of time", () => {
  test("the generated file is what script/config-checks.ts writes today (run bun run gen:config-checks)", async () => {
    expect(await Bun.file(GENERATED_FILE).text()).toBe(await configChecksSource());
  });

  test("every config block schema has its check, and nothing else does", async () => {
    const schemas = await configBlockSchemas();
    expect(Object.keys(CONFIG_CHECKS).sort()).toEqual([...schemas.keys()].sort());
    expect(schemas.size).toBeGreaterThanOrEqual(5);
  });

  test("each generated check agrees with TypeBox's Check on valid, wrong and random values", async () => {
    const checks = CONFIG_CHECKS as Readonly<Record<string, (value: unknown) => boolean>>;
    for (const [id, schema] of await configBlockSchemas()) {
      const keys = [...keysOf(schema)];
      const next = random(id.length * 7919);
      // A schema's own `examples` (a block random values rarely get right, such as a layer) are valid ones.
      const examples = (schema as { examples?: unknown[] }).examples ?? [];
      const values = [...LEAVES, ...examples, ...Array.from({ length: 400 }, () => valueFor(keys, next, 0))];
      let accepted = 0;
      for (const value of values) {
        const expected = SchemaModule.Check(schema as SchemaModule.XSchema, value);
        if (expected) accepted++;
        expect({ id, value, valid: checks[id]!(value) }).toEqual({ id, value, valid: expected });
      }
      // Both answers occur, or the comparison proves little.
      expect({ id, accepted: accepted > 0 && accepted < values.length }).toEqual({ id, accepted: true });
    }
  });

  /** Strings whose length in UTF-16 units and in code points differ: pairs, lone surrogates, a combining mark. */
  const STRINGS = [
    "",
    " ",
    "   ",
    "a",
    "ab",
    "abc",
    "😀",
    "😀😀",
    "😀a",
    "a😀😀",
    "\ud800",
    "\udc00\ud800",
    "e\u0301",
    "\u0000",
  ];

  test("minLength and maxLength build ahead of time, counting code points as TypeBox does", async () => {
    const schema = {
      $id: "lengths",
      type: "object",
      properties: {
        some: { type: "string", minLength: 1 },
        two: { type: "string", minLength: 2, maxLength: 2 },
        list: { type: "array", items: { type: "string", maxLength: 1 } },
      },
    };
    const source = await configChecksSource(new Map([["lengths", schema]]));
    expect(source).toContain("Guard.CodePointCount");
    const dir = mkdtempSync(join(tmpdir(), "config-checks-"));
    try {
      const file = join(dir, "checks.ts");
      await Bun.write(file, source);
      const { CONFIG_CHECKS } = (await import(file)) as { CONFIG_CHECKS: Record<string, (value: unknown) => boolean> };
      const values = STRINGS.flatMap((text) => [{ some: text }, { two: text }, { list: [text] }]);
      for (const value of values)
        expect({ value, valid: CONFIG_CHECKS.lengths!(value) }).toEqual({
          value,
          valid: SchemaModule.Check(schema as SchemaModule.XSchema, value),
        });
      // minLength 1 is "not empty": a string of spaces passes (config-schema.ts's NON_BLANK refuses it).
      expect([CONFIG_CHECKS.lengths!({ some: "" }), CONFIG_CHECKS.lengths!({ some: "   " })]).toEqual([false, true]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("the helpers written out for the generated file count as TypeBox's own", () => {
    for (const text of STRINGS)
      expect({ text, count: GUARD_HELPERS.CodePointCount(text) }).toEqual({ text, count: Guard.CodePointCount(text) });
  });
});
