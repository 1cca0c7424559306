import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readConfigFile } from "../../src/config/config-file.ts";
import type { ConfigProblem } from "../../src/config/config-problem.ts";
import {
  type BlockOf,
  type BlockSchema,
  declares,
  defaultSubject,
  type ReadBlockOptions,
  readBlock,
} from "../../src/config/config-schema.ts";

// Test schemas have no check built ahead: these tests read through TypeBox's own Check.
const Entry = {
  $id: "test-entry",
  type: "object",
  noun: "server",
  dropSeverity: "error",
  additionalProperties: false,
  required: ["name"],
  properties: {
    name: { type: "string", pattern: "\\S", errorMessage: "must be a name" },
    port: { type: "integer", minimum: 1, maximum: 65535, errorMessage: "must be a port", hint: "e.g. port: 8080" },
    tags: { type: "array", items: { type: "string", errorMessage: "must be a word" } },
    labels: { type: "object", additionalProperties: { type: "string", errorMessage: "must be text" } },
  },
} as const;

const Block = {
  $id: "test-demo",
  anyOf: [
    { const: "off" },
    {
      type: "object",
      additionalProperties: false,
      properties: {
        servers: { type: "array", items: Entry },
        mode: { enum: ["fast", "safe"], errorMessage: "must be fast or safe" },
      },
    },
  ],
  errorMessage: "must be off or a mapping",
  hint: "e.g. demo: off",
} as const;

function read(value: unknown) {
  const problems: ConfigProblem[] = [];
  const block = readBlock(Block, value, (p) => problems.push(p), { key: "demo" });
  return { block, problems };
}

describe("readBlock", () => {
  test("a valid block is returned as it is, with the type the schema declares", () => {
    const value = { servers: [{ name: "a", port: 80, tags: ["x"] }], mode: "fast" };
    const { block, problems } = read(value);
    expect(block).toBe(value as never);
    expect(problems).toEqual([]);
    // The derived type: a wrong shape here would not compile.
    const typed: BlockOf<typeof Block> = { servers: [{ name: "b", labels: { team: "sre" } }] };
    const mode: BlockOf<typeof Block> = "off";
    expect([typed, mode]).toHaveLength(2);
  });

  test("a wrong optional key is left out, named at its path with the schema's words and hint", () => {
    const { block, problems } = read({ servers: [{ name: "a", port: 0 }], mode: "fast" });
    expect(block).toEqual({ servers: [{ name: "a" }], mode: "fast" });
    expect(problems).toEqual([
      {
        message: '"demo.servers" entry 1 "port" must be a port; ignored',
        path: ["servers", 0, "port"],
        hint: "e.g. port: 8080",
        severity: "warning",
      },
    ]);
  });

  test("a wrong required key drops the mapping holding it, with the mapping's noun and drop severity", () => {
    const { block, problems } = read({ servers: [{ name: " " }, { name: "b" }] });
    expect(block).toEqual({ servers: [{ name: "b" }] });
    expect(problems).toEqual([
      {
        message: '"demo.servers" entry 1 "name" must be a name; server ignored',
        path: ["servers", 0, "name"],
        severity: "error",
      },
    ]);
  });

  test("a missing required key drops the mapping and says which key it needs", () => {
    const { block, problems } = read({ servers: [{ port: 80 }] });
    expect(block).toEqual({ servers: [] });
    expect(problems).toEqual([
      { message: '"demo.servers" entry 1 needs "name"; ignored', path: ["servers", 0], severity: "error" },
    ]);
  });

  test("a wrong list entry or map value is left out; the others are kept", () => {
    const { block, problems } = read({ servers: [{ name: "a", tags: ["x", 3, "y"], labels: { team: "sre", n: 1 } }] });
    expect(block).toEqual({ servers: [{ name: "a", tags: ["x", "y"], labels: { team: "sre" } }] });
    expect(problems.map((p) => [p.message, p.path])).toEqual([
      ['"demo.servers" entry 1 "tags" entry 2 must be a word; ignored', ["servers", 0, "tags", 1]],
      ['"demo.servers" entry 1 "labels.n" must be text; ignored', ["servers", 0, "labels", "n"]],
    ]);
  });

  test("an unknown key is left out with the known keys and the closest one", () => {
    const { block, problems } = read({ mdoe: "fast", servers: [{ name: "a", prot: 1 }] });
    expect(block).toEqual({ servers: [{ name: "a" }] });
    expect(problems).toEqual([
      {
        message: 'unknown key "demo.mdoe" is ignored (known keys: servers, mode)',
        path: ["mdoe"],
        hint: 'did you mean "mode"?',
      },
      {
        message: 'unknown key "demo.servers" entry 1 "prot" is ignored (known keys: name, port, tags, labels)',
        path: ["servers", 0, "prot"],
        hint: 'did you mean "port"?',
      },
    ]);
  });

  test("a value of no branch's type ignores the block with the block's words", () => {
    for (const value of [42, "on", null, ["off"]]) {
      const { block, problems } = read(value);
      expect(block).toBeUndefined();
      expect(problems).toEqual([
        { message: '"demo" must be off or a mapping; ignored', path: [], hint: "e.g. demo: off", severity: "warning" },
      ]);
    }
  });

  test("a subject override names the key in the caller's words", () => {
    const problems: ConfigProblem[] = [];
    readBlock(Entry, { name: "a", port: "x" }, (p) => problems.push(p), {
      subject: (path) => `server "a": "${path.join(".")}"`,
    });
    expect(problems[0]?.message).toBe('server "a": "port" must be a port; ignored');
  });

  test("the default subject joins keys with dots and names list positions", () => {
    expect(defaultSubject("audit", [])).toBe('"audit"');
    expect(defaultSubject("audit", ["allow", 1])).toBe('"audit.allow" entry 2');
    expect(defaultSubject("audit", ["allow", 1, "digest"])).toBe('"audit.allow" entry 2 "digest"');
    expect(defaultSubject(undefined, [0, "name"])).toBe('entry 1 "name"');
  });
});

describe("the file's own keys", () => {
  async function readFile(text: string) {
    const dir = mkdtempSync(join(tmpdir(), "skill-central-config-"));
    const file = join(dir, "skill-central.yaml");
    writeFileSync(file, text);
    const said: string[] = [];
    const config = await readConfigFile(file, dir, (d) =>
      said.push(`${d.position?.line}:${d.position?.column} ${d.severity}: ${d.message}`),
    );
    rmSync(dir, { recursive: true, force: true });
    return { config, said };
  }

  test("enable takes a list of ids (one id is a list of one); a wrong entry is left out, the others kept", async () => {
    expect((await readFile("enable: beta\n")).config.enable).toEqual(["beta"]);
    expect((await readFile("enable:\n")).config.enable).toEqual([]);
    const { config, said } = await readFile("enable: [beta, 3, ' gamma ', beta]\n");
    expect(config.enable).toEqual(["beta", "gamma"]);
    expect(said).toEqual(['1:16 warning: "enable" entry 2 must be a skill id; ignored']);
  });

  test("a key Object has (constructor, toString) is an unknown key like any other", async () => {
    const { config, said } = await readFile("constructor: 1\ntoString: x\nbuiltin: false\n");
    expect(config.builtin).toBe(false);
    expect(said.map((line) => line.split(" (known keys")[0])).toEqual([
      '1:1 warning: unknown key "constructor" is ignored',
      '2:1 warning: unknown key "toString" is ignored',
    ]);
  });

  test("builtin and pageSize: a wrong value is named at its key and left out", async () => {
    const { config, said } = await readFile("builtin: maybe\npageSize: 0\n");
    expect(config.builtin).toBeUndefined();
    expect(config.pageSize).toBeUndefined();
    expect(said).toEqual([
      '1:1 warning: "builtin" must be true or false; ignored',
      '2:1 warning: "pageSize" must be a positive whole number; ignored',
    ]);
  });
});

describe("consequence and declares (the http: block's refusals)", () => {
  const read = (schema: BlockSchema, value: unknown) => {
    const problems: ConfigProblem[] = [];
    const kept = readBlock(schema, value, (p) => problems.push(p), { key: "b" });
    return { kept, problems };
  };
  const Block = {
    $id: "test-refusals",
    type: "object",
    additionalProperties: false,
    properties: {
      plain: { type: "string", errorMessage: "must be a string" },
      refused: { type: "string", errorMessage: "must be a string", consequence: "the server will not start" },
      inner: {
        anyOf: [
          { type: "null" },
          {
            type: "object",
            additionalProperties: false,
            required: ["name"],
            properties: { name: { type: "string" }, list: { type: "array", items: { type: "integer" } } },
          },
        ],
        errorMessage: "must be a mapping",
        consequence: "inner refused",
      },
      map: { type: "object", additionalProperties: { type: "integer" } },
    },
  } as const;

  test("a node's consequence is said instead of `ignored`, for its own problem and a missing required key", () => {
    expect(read(Block, { plain: 1, refused: 2, inner: 3 }).problems).toEqual([
      { message: '"b.plain" must be a string; ignored', path: ["plain"], severity: "warning" },
      { message: '"b.refused" must be a string; the server will not start', path: ["refused"], severity: "warning" },
      { message: '"b.inner" must be a mapping; inner refused', path: ["inner"], severity: "warning" },
    ]);
    expect(read(Block, { inner: {} }).problems).toEqual([
      { message: '"b.inner" needs "name"; inner refused', path: ["inner"], severity: "warning" },
    ]);
  });

  test("declares: keys of mappings (through anyOf branches), list entries and additionalProperties; not unknown keys", () => {
    expect(declares(Block, [])).toBe(true);
    expect(declares(Block, ["plain"])).toBe(true);
    expect(declares(Block, ["inner", "name"])).toBe(true);
    expect(declares(Block, ["inner", "list", 3])).toBe(true);
    expect(declares(Block, ["map", "anything"])).toBe(true);
    expect(declares(Block, ["plian"])).toBe(false);
    expect(declares(Block, ["inner", "nmae"])).toBe(false);
    expect(declares(Block, ["plain", 0])).toBe(false);
    const { problems } = read(Block, { plian: "x", inner: { name: "n", nmae: 1 } });
    expect(problems.map((p) => [p.path, declares(Block, p.path)])).toEqual([
      [["plian"], false],
      [["inner", "nmae"], false],
    ]);
  });
});

function readWith(schema: { $id: string }, value: unknown, options: ReadBlockOptions = {}) {
  const problems: ConfigProblem[] = [];
  const block = readBlock(schema, value, (p) => problems.push(p), options);
  return { block, problems };
}

/** Keywords and options a layer entry needs (src/config/read-layers.ts), on small schemas of their own. */
describe("readBlock: dropsMapping, consequence, within, and mappings of one value schema", () => {
  const Holder = {
    $id: "test-holder",
    type: "object",
    additionalProperties: false,
    required: ["name"],
    noun: "entry",
    dropSeverity: "error",
    properties: {
      name: { type: "string" },
      keys: {
        type: "array",
        items: { type: "string", pattern: "^[a-z]+$" },
        dropsMapping: true,
        errorMessage: "must be a list of lowercase words",
      },
      note: { type: "string", errorMessage: "must be a string" },
    },
    errorMessage: "must be a mapping { name }",
  } as const;

  test("dropsMapping: a value not valid as a whole drops the mapping (at the mapping's severity), not just its bad entries", () => {
    expect(readWith(Holder, { name: "a", keys: ["ok", "NO"] }, { key: "e" })).toEqual({
      block: undefined,
      problems: [
        {
          message: '"e.keys" must be a list of lowercase words; entry ignored',
          path: ["keys"],
          severity: "error",
        },
      ],
    });
    // Left out, the key drops nothing; valid, it is kept as written.
    expect(readWith(Holder, { name: "a" }).block).toEqual({ name: "a" });
    expect(readWith(Holder, { name: "a", keys: ["ok"] }).block).toEqual({ name: "a", keys: ["ok"] });
  });

  test("without dropsMapping a wrong optional key is dropped alone, with a warning", () => {
    expect(readWith(Holder, { name: "a", note: 1 }, { key: "e" })).toEqual({
      block: { name: "a" },
      problems: [{ message: '"e.note" must be a string; ignored', path: ["note"], severity: "warning" }],
    });
  });

  test("the block's own dropSeverity applies when the block itself is dropped", () => {
    expect(readWith(Holder, "x", { key: "e" }).problems).toEqual([
      { message: '"e" must be a mapping { name }; ignored', path: [], severity: "error" },
    ]);
    expect(readWith(Holder, {}, { key: "e" }).problems).toEqual([
      { message: '"e" needs "name"; ignored', path: [], severity: "error" },
    ]);
  });

  test("within: messages start with what the block is, unknown keys too", () => {
    expect(readWith(Holder, { name: "a", note: 1, nmae: "b" }, { within: 'entry "a"' }).problems).toEqual([
      { message: 'entry "a": "note" must be a string; ignored', path: ["note"], severity: "warning" },
      {
        message: 'entry "a": unknown key "nmae" is ignored (known keys: name, keys, note)',
        path: ["nmae"],
        hint: 'did you mean "name"?',
      },
    ]);
    expect(readWith(Holder, 42, { within: "entry 3" }).problems.map((p) => p.message)).toEqual([
      "entry 3 must be a mapping { name }; ignored",
    ]);
  });

  const Grants = {
    $id: "test-grants",
    type: "object",
    additionalProperties: {
      type: "array",
      items: {
        type: "string",
        minLength: 1,
        errorMessage: "must be a non-empty string",
        consequence: "it grants nobody",
      },
      errorMessage: "must be a list of strings",
      consequence: "it grants nobody",
    },
  } as const;

  test("a mapping of one value schema is pruned value by value; consequence says what a drop means", () => {
    expect(readWith(Grants, { a: ["x", ""], b: { y: 1 }, c: ["z"] }, { key: "g" })).toEqual({
      block: { a: ["x"], c: ["z"] },
      problems: [
        { message: '"g.a" entry 2 must be a non-empty string; it grants nobody', path: ["a", 1], severity: "warning" },
        { message: '"g.b" must be a list of strings; it grants nobody', path: ["b"], severity: "warning" },
      ],
    });
  });
});
