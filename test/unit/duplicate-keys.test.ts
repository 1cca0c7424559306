import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { LineCounter, isScalar, parseDocument, visit, type Node } from "yaml";
import { parseYamlDocument } from "../../src/storage/parse-document.ts";
import { mulberry32 } from "../helpers/random.ts";

/*
 * Duplicate keys on the way YAML is read (parse-document.ts): the fast reader (fast-yaml.ts)
 * never answers for a document with one, and the `yaml` package, which then reads it, reports
 * the first repeated key. These cases once tested a separate duplicate-key scan in front of
 * `Bun.YAML.parse`; that path is gone, and they now test the one that remains against `yaml`.
 */

/** The authority: does the `yaml` package report a duplicate key anywhere in `text`? */
function yamlFindsDuplicate(text: string): boolean {
  return parseDocument(text, { uniqueKeys: true }).errors.some((e) => e.code === "DUPLICATE_KEY");
}

/**
 * What the yaml package sees: whether it reports DUPLICATE_KEY, and the 1-based line of the first
 * repeated key in its tree (the key node's own range: the error offset can sit at the end of the
 * previous line).
 */
function yamlReading(text: string): { duplicate: boolean; line?: number } {
  const lines = new LineCounter();
  const doc = parseDocument(text, { uniqueKeys: true, lineCounter: lines });
  const duplicate = doc.errors.some((e) => e.code === "DUPLICATE_KEY");
  if (!duplicate) return { duplicate };
  const found: number[] = [];
  visit(doc, {
    Map(_, map) {
      const seen = new Set<unknown>();
      for (const pair of map.items) {
        const key = isScalar(pair.key) ? pair.key.value : pair.key;
        if (seen.has(key)) found.push((pair.key as Node).range![0]);
        seen.add(key);
      }
    },
  });
  return { duplicate, line: found.length === 0 ? undefined : lines.linePos(Math.min(...found)).line };
}

type Verdict = { kind: "clean" } | { kind: "duplicate"; line: number; key: string } | { kind: "error" };

/** How the text is read: clean, a duplicate key (its line and name, from the diagnostic), or another error. */
function reading(text: string): Verdict {
  const result = parseYamlDocument({ file: "skill.yaml", text });
  if (result.ok) return { kind: "clean" };
  const { code, position, message } = result.diagnostic;
  if (code !== "duplicate-key") return { kind: "error" };
  return {
    kind: "duplicate",
    line: position!.line,
    key: /^duplicate key "(.*)" in a mapping/.exec(message)?.[1] ?? "?",
  };
}

const scan = (lines: string[], eol = "\n"): Verdict => reading(lines.join(eol) + eol);
const kind = (lines: string[], eol = "\n"): string => scan(lines, eol).kind;

/** Read as the `yaml` package reads it: the same data, or the same duplicate on the same line, or an error. */
function agreesWithYaml(text: string): void {
  const lines = new LineCounter();
  const doc = parseDocument(text, { uniqueKeys: true, lineCounter: lines });
  const result = parseYamlDocument({ file: "skill.yaml", text });
  const yamlSays = yamlReading(text);
  if (doc.errors.some((e) => e.code !== "DUPLICATE_KEY")) expect({ text, ok: result.ok }).toEqual({ text, ok: false });
  else if (yamlSays.duplicate)
    expect({ text, read: reading(text).kind, line: (reading(text) as { line?: number }).line }).toEqual({
      text,
      read: "duplicate",
      line: yamlSays.line,
    });
  else if (!result.ok && /guard against alias bombs/.test(result.diagnostic.message)) {
    // A self-containing alias, which the yaml package expands into a cycle, is refused on purpose (parse-document.test.ts).
    expect(text).toContain("*");
  } else {
    let data: unknown;
    try {
      data = doc.toJS();
    } catch (error) {
      // An alias before its anchor fails only when the document becomes data.
      data = `invalid YAML: ${(error as Error).message}`;
    }
    expect({ text, data: result.ok ? result.doc.data : result.diagnostic.message }).toEqual({ text, data });
  }
}

describe("duplicate keys in block mappings", () => {
  test("a clean document is clean", () => {
    const text = ["id: a", "description: b", "type: prompt"];
    expect(kind(text)).toBe("clean");
  });

  test("a repeated top-level key is reported with its line and key", () => {
    expect(scan(["id: a", "description: b", "id: c"])).toEqual({ kind: "duplicate", line: 3, key: "id" });
  });

  test("a repeated key with an empty value is still a duplicate", () => {
    expect(scan(["tags:", "name: x", "tags:"])).toEqual({ kind: "duplicate", line: 3, key: "tags" });
  });

  test("a repeated key in a nested mapping is reported at the repeat", () => {
    const text = ["meta:", "  owner: a", "  team: b", "  owner: c"];
    expect(scan(text)).toEqual({ kind: "duplicate", line: 4, key: "owner" });
  });

  test("a nested duplicate is found after a deeper mapping closes", () => {
    const text = ["a:", "  x:", "    deep: 1", "  y: 2", "  x: 3"];
    expect(scan(text)).toEqual({ kind: "duplicate", line: 5, key: "x" });
  });

  test("a top-level duplicate is found after nested mappings close", () => {
    const text = ["a:", "  x: 1", "b:", "  y:", "    z: 1", "a: 2"];
    expect(scan(text)).toEqual({ kind: "duplicate", line: 6, key: "a" });
  });

  test("the same key in different nested mappings is not a duplicate", () => {
    const text = ["a:", "  name: x", "b:", "  name: y", "c:", "  inner:", "    name: z"];
    expect(kind(text)).toBe("clean");
  });

  test("a nested key equal to a parent key is not a duplicate", () => {
    expect(kind(["name: a", "meta:", "  name: b"])).toBe("clean");
  });

  test("space before the colon does not hide a duplicate", () => {
    expect(scan(["name: a", "name  : b"])).toEqual({ kind: "duplicate", line: 2, key: "name" });
  });

  test("keys containing colons, dashes and hashes are read whole", () => {
    expect(kind(["a:b: 1", "a: 2", "-x: 3", "x: 4", "c#d: 5", "c: 6"])).toBe("clean");
    // The message names the key up to its first colon; the line is the repeat's.
    expect(scan(["a:b: 1", "a:b: 2"])).toMatchObject({ kind: "duplicate", line: 2 });
  });
});

describe("duplicate keys in sequences", () => {
  test("a key repeated inside one sequence item is a duplicate", () => {
    expect(scan(["- name: a", "  name: b"])).toEqual({ kind: "duplicate", line: 2, key: "name" });
  });

  test("a key repeated inside a nested sequence item is a duplicate", () => {
    const text = ["arguments:", "  - name: a", "    required: true", "    name: b"];
    expect(scan(text)).toEqual({ kind: "duplicate", line: 4, key: "name" });
  });

  test("the same key in different sequence items is not a duplicate", () => {
    const text = ["arguments:", "  - name: a", "    required: true", "  - name: b", "    required: false"];
    expect(kind(text)).toBe("clean");
  });

  test("the same key in items of an unindented sequence is not a duplicate", () => {
    expect(kind(["arguments:", "- name: a", "- name: b", "other: 1"])).toBe("clean");
  });

  test("a parent key repeated after an unindented sequence is a duplicate", () => {
    expect(scan(["a:", "- x: 1", "- x: 2", "a: 3"])).toEqual({ kind: "duplicate", line: 4, key: "a" });
  });

  test("an item whose mapping starts on the next line still tracks its keys", () => {
    expect(scan(["-", "  a: 1", "  a: 2"])).toEqual({ kind: "duplicate", line: 3, key: "a" });
    expect(kind(["-", "  a: 1", "-", "  a: 2"])).toBe("clean");
  });

  test("items of a sequence nested in a sequence are separate mappings", () => {
    expect(kind(["- - a: 1", "  - a: 2"])).toBe("clean");
    expect(scan(["- - a: 1", "    a: 2"])).toEqual({ kind: "duplicate", line: 2, key: "a" });
  });

  test("a mapping nested in an item closes before the item's next key", () => {
    const text = ["- a:", "    x: 1", "  x: 2", "- a: 3"];
    expect(kind(text)).toBe("clean");
  });

  test("scalar items between mapping items do not merge or split them wrongly", () => {
    expect(kind(["- x: 1", "- plain", "- x: 2"])).toBe("clean");
  });
});

describe("block scalars", () => {
  test("key-like lines inside a literal block scalar are ignored", () => {
    expect(kind(["id: a", "prompt: |", "  id: x", "  id: y", "type: prompt"])).toBe("clean");
  });

  test("key-like lines inside a folded block scalar with indicators are ignored", () => {
    expect(kind(["prompt: >-", "  id: x", "", "  id: y", "notes: |+2 # kept", "   a: 1", "   a: 2"])).toBe("clean");
  });

  test("a key after a block scalar is still compared with earlier keys", () => {
    expect(scan(["id: a", "prompt: |", "  text", "id: b"])).toEqual({ kind: "duplicate", line: 4, key: "id" });
  });

  test("a block scalar ends at a less indented line even after blank lines", () => {
    expect(scan(["x:", "  p: |", "    body", "", "  q: 1", "  p: 2"])).toEqual({
      kind: "duplicate",
      line: 6,
      key: "p",
    });
  });

  test("a block scalar as a sequence item hides its content", () => {
    expect(kind(["- |", "  a: 1", "  a: 2", "- b"])).toBe("clean");
  });

  test("a block scalar value inside a sequence item hides its content", () => {
    const text = ["- prompt: |", "    id: x", "    id: y", "  name: a", "- prompt: >", "    id: x"];
    expect(kind(text)).toBe("clean");
  });

  test("a key after a block scalar inside a sequence item is compared with that item's keys", () => {
    expect(scan(["- prompt: |", "    text", "  prompt: again"])).toEqual({ kind: "duplicate", line: 3, key: "prompt" });
  });
});

describe("constructs the fast reader leaves to the yaml package", () => {
  test("a flow mapping repeating a key is never clean", () => {
    for (const text of ["a: {x: 1, x: 2}", "- {name: a, name: b}", "a: [1, {x: 1, x: 2}]", "{x: 1, x: 2}"]) {
      expect(kind([text])).not.toBe("clean");
      expect(yamlFindsDuplicate(text)).toBe(true);
    }
  });

  test("a flow mapping without repeats is never reported as a duplicate", () => {
    for (const text of ["a: {x: 1, y: 2}", "args: [{name: a}, {name: a}]", "a: {x: {y: 1}, y: 2}"]) {
      expect(kind([text])).toBe("clean");
    }
  });

  const asYaml = (lines: string[]) => agreesWithYaml(`${lines.join("\n")}\n`);

  test("a flow collection spread over several lines is read as the yaml package reads it", () => {
    asYaml(["a: {", "  x: 1,", "  y: 2", "}"]);
    asYaml(["a: [", "  x, {y: 1, y: 2}", "]"]);
    asYaml(["a: [x,", "  {y: 1, y: 2}]"]);
  });

  test("anchors, aliases and merge keys are read as the yaml package reads them", () => {
    asYaml(["base: &b", "  x: 1", "other: *b"]);
    asYaml(["base:", "  x: 1", "other:", "  <<: {x: 2}"]);
    asYaml(["base:", "  x: 1", "other:", "  <<: [a]"]);
    asYaml(["&k key: 1"]);
    asYaml(["*k : 1"]);
  });

  test("tags, complex keys and directives are read as the yaml package reads them", () => {
    asYaml(["a: !!map", "  x: 1"]);
    asYaml(["? a", ": 1"]);
    asYaml(["%YAML 1.2", "---", "a: 1"]);
  });

  test("more than one document is an error", () => {
    expect(kind(["a: 1", "---", "a: 2"])).not.toBe("clean");
    expect(kind(["a: 1", "...", "a: 2"])).not.toBe("clean");
  });

  test("a single leading document marker is allowed", () => {
    expect(kind(["---", "a: 1", "b: 2"])).toBe("clean");
    expect(scan(["---", "a: 1", "a: 2"])).toEqual({ kind: "duplicate", line: 3, key: "a" });
  });

  test("tab indentation is an error", () => {
    expect(kind(["a:", "\tx: 1", "\tx: 2"])).toBe("error");
    expect(kind(["a:", "  \tx: 1"])).toBe("error");
  });

  test("a tab inside a value does not stop the scan", () => {
    expect(scan(["a: x\ty", "a: z"])).toEqual({ kind: "duplicate", line: 2, key: "a" });
  });
});

describe("quoting, comments and line endings", () => {
  test("a quoted key and a plain key with the same text are duplicates", () => {
    expect(scan(['"name": a', "name: b"])).toEqual({ kind: "duplicate", line: 2, key: "name" });
    expect(scan(["'name': a", '"name": b'])).toEqual({ kind: "duplicate", line: 2, key: "name" });
  });

  test("quoted keys with spaces, colons and hashes are compared exactly", () => {
    expect(kind(['"a: b": 1', "a: 2", "'c # d': 3", "c: 4"])).toBe("clean");
    expect(scan(['"a: b": 1', "'a: b': 2"])).toEqual({ kind: "duplicate", line: 2, key: "a: b" });
  });

  test("a double-quoted key with escapes is never clean next to its unescaped twin", () => {
    const text = ['"\\x61": 1', "a: 2"];
    expect(yamlFindsDuplicate(text.join("\n"))).toBe(true);
    expect(kind(text)).not.toBe("clean");
  });

  test("comments are not keys, wherever they are", () => {
    const text = ["# id: x", "id: a # id: y", "  # id: z", "meta:", "  # owner: q", "  owner: b"];
    expect(kind(text)).toBe("clean");
  });

  test("a value containing a hash is not a comment that hides anything", () => {
    expect(scan(["a: x#y", "a: z"])).toEqual({ kind: "duplicate", line: 2, key: "a" });
  });

  test("CRLF line endings behave like LF", () => {
    expect(kind(["id: a", "prompt: |", "  id: x", "meta:", "  id: y"], "\r\n")).toBe("clean");
    expect(scan(["id: a", "meta:", "  k: 1", "  k: 2"], "\r\n")).toEqual({ kind: "duplicate", line: 4, key: "k" });
    expect(scan(["---", "a: 1", "a: 2"], "\r\n")).toEqual({ kind: "duplicate", line: 3, key: "a" });
  });

  test("an empty document is clean", () => {
    expect(reading("").kind).toBe("clean");
    expect(reading("# only a comment\n\n").kind).toBe("clean");
  });
});

/**
 * Each of these texts is valid YAML that `Bun.YAML.parse` accepts (keeping the last key), and the
 * `yaml` package reports a duplicate key: keys spelled differently that resolve to the same value.
 * They must never be read as clean.
 */
describe("keys that resolve to the same value are never clean", () => {
  const cases: Record<string, string> = {
    "single-quoted key with an escaped quote": "'it''s': 1\n\"it's\": 2\n",
    "plain keys that resolve to the same integer": "1: a\n01: b\n",
    "plain keys that resolve to the same number in hex": "0x1: a\n1: b\n",
    "plain keys that resolve to the same float": "1.0: a\n1: b\n",
    "plain keys that resolve to the same boolean": "true: a\nTrue: b\n",
    "plain keys that resolve to null": "null: a\n~: b\n",
    "numeric keys in a flow mapping": "{1: a, 01: b}\n",
    "a tab between key and colon": "a\t: 1\na: 2\n",
    "a byte-order mark before the first key": "\uFEFFa: 1\na: 2\n",
  };
  test("the repro texts are valid YAML in which the yaml package finds a duplicate", () => {
    for (const text of Object.values(cases)) {
      expect(yamlFindsDuplicate(text)).toBe(true);
      expect(() => Bun.YAML.parse(text)).not.toThrow();
    }
  });
  for (const [name, text] of Object.entries(cases)) {
    test(`${name} is never clean`, () => {
      expect(reading(text).kind).not.toBe("clean");
    });
  }
});

// ---------------------------------------------------------------------------------------------
// Property: over many generated documents, `clean` never hides a duplicate the yaml package sees.

class Gen {
  private anchors = 0;
  constructor(private readonly rnd: () => number) {}
  chance(p: number): boolean {
    return this.rnd() < p;
  }
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.rnd() * (hi - lo + 1));
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.rnd() * items.length)]!;
  }
  /** A small key pool so that repeats happen often. */
  key(): string {
    const name = this.pick(["id", "name", "a", "b", "tags", "x y"]);
    const style = this.rnd();
    if (style < 0.12) return `"${name}"`;
    if (style < 0.2) return `'${name}'`;
    if (style < 0.25) return `${name} `; // space before the colon
    return name;
  }
  scalar(): string {
    return this.pick([
      "1",
      "text",
      "two words",
      '"quoted: yes"',
      "'single # not comment'",
      "x # comment",
      "a:b",
      "tab\there",
      "true",
    ]);
  }
  flow(): string {
    const pairs = Array.from(
      { length: this.int(1, 3) },
      () => `${this.pick(["a", "b", "name"])}: ${this.pick(["1", "x", "[p, q]"])}`,
    );
    const map = `{${pairs.join(", ")}}`;
    return this.pick([map, `[x, ${map}]`, "[a, b]", "[]", "{}"]);
  }
  blockScalarLines(indent: string): string[] {
    const lines = Array.from(
      { length: this.int(1, 3) },
      () => `${indent}${this.pick(["id: x", "name: y", "- a: 1", "plain text", "# not a comment", "{a: 1, a: 2}"])}`,
    );
    if (this.chance(0.3)) lines.splice(1, 0, "");
    return lines;
  }
  /** Lines of a block mapping at `indent`; the first line may be prefixed (`- `) by the caller. */
  mapping(indent: number, depth: number): string[] {
    const pad = " ".repeat(indent);
    const out: string[] = [];
    const count = this.int(1, 4);
    for (let i = 0; i < count; i++) {
      if (this.chance(0.08)) out.push(`${" ".repeat(this.int(0, indent + 2))}# ${this.key()}: comment`);
      const key = this.key();
      const roll = this.rnd();
      if (depth < 3 && roll < 0.2) {
        out.push(`${pad}${key}:`);
        out.push(...this.mapping(indent + 2, depth + 1));
      } else if (depth < 3 && roll < 0.35) {
        out.push(`${pad}${key}:`);
        out.push(...this.sequence(this.chance(0.3) ? indent : indent + 2, depth + 1));
      } else if (roll < 0.5) {
        out.push(`${pad}${key}: ${this.pick(["|", ">", "|-", ">+", "| # note"])}`);
        out.push(...this.blockScalarLines(" ".repeat(indent + 2)));
      } else if (roll < 0.6) {
        out.push(`${pad}${key}: ${this.flow()}`);
      } else if (roll < 0.64) {
        const name = `n${this.anchors++}`;
        out.push(`${pad}${key}: &${name}`);
        out.push(...this.mapping(indent + 2, 3));
      } else if (roll < 0.67 && this.anchors > 0) {
        out.push(`${pad}${key}: *n${this.anchors - 1}`);
      } else if (roll < 0.7 && this.anchors > 0) {
        out.push(`${pad}<<: *n${this.anchors - 1}`);
      } else if (roll < 0.74) {
        out.push(`${pad}${key}:`);
      } else {
        out.push(`${pad}${key}: ${this.scalar()}`);
      }
    }
    return out;
  }
  sequence(indent: number, depth: number): string[] {
    const pad = " ".repeat(indent);
    const out: string[] = [];
    const count = this.int(1, 3);
    for (let i = 0; i < count; i++) {
      const roll = this.rnd();
      if (roll < 0.55) {
        const body = this.mapping(indent + 2, depth);
        out.push(`${pad}- ${body[0]!.trimStart()}`, ...body.slice(1));
      } else if (roll < 0.65) {
        out.push(`${pad}- ${this.pick(["|", ">-"])}`, ...this.blockScalarLines(" ".repeat(indent + 2)));
      } else if (roll < 0.72) {
        out.push(`${pad}-`, ...this.mapping(indent + 2, depth));
      } else if (roll < 0.8) {
        out.push(`${pad}- ${this.flow()}`);
      } else if (roll < 0.86 && depth < 3) {
        const inner = this.sequence(indent + 2, depth + 1);
        out.push(`${pad}- ${inner[0]!.trimStart()}`, ...inner.slice(1));
      } else {
        out.push(`${pad}- ${this.scalar()}`);
      }
    }
    return out;
  }
  document(): string {
    let lines = this.mapping(0, 0);
    if (this.chance(0.1)) lines.unshift("---");
    if (this.chance(0.05)) lines = [...lines, "---", ...this.mapping(0, 1)];
    if (this.chance(0.04)) lines.splice(this.int(1, lines.length), 0, `\t${this.key()}: tabbed`);
    return `${lines.join(this.chance(0.2) ? "\r\n" : "\n")}\n`;
  }
}

describe("property: reading agrees with the yaml package", () => {
  const documents = (() => {
    const gen = new Gen(mulberry32(20240611));
    return Array.from({ length: 1000 }, () => gen.document());
  })();
  const verdicts = documents.map((text) => ({ text, verdict: reading(text), ...yamlReading(text) }));

  test("whenever a document reads clean, the yaml package finds no duplicate key", () => {
    const wrong = verdicts.filter((v) => v.verdict.kind === "clean" && v.duplicate).map((v) => v.text);
    expect(wrong).toEqual([]);
  });

  test("whenever the yaml package finds a duplicate key, the document is not read", () => {
    for (const v of verdicts.filter((v) => v.duplicate)) expect(["duplicate", "error"]).toContain(v.verdict.kind);
  });

  test("a duplicate reported is on the line of the yaml package's first repeated key", () => {
    const checked = verdicts.filter((v) => v.verdict.kind === "duplicate" && v.duplicate);
    expect(checked.length).toBeGreaterThan(200);
    for (const v of checked) {
      expect({ text: v.text, line: (v.verdict as { line: number }).line }).toEqual({ text: v.text, line: v.line! });
    }
  });

  test("every generated document is read as the yaml package reads it", () => {
    for (const text of documents) agreesWithYaml(text);
  });

  test("the generated documents exercise every verdict and both yaml outcomes", () => {
    const count = (k: string) => verdicts.filter((v) => v.verdict.kind === k).length;
    expect(count("clean")).toBeGreaterThan(150);
    expect(count("duplicate")).toBeGreaterThan(200);
    expect(count("error")).toBeGreaterThan(10);
    expect(verdicts.filter((v) => v.duplicate).length).toBeGreaterThan(200);
    expect(verdicts.filter((v) => !v.duplicate && v.verdict.kind === "clean").length).toBeGreaterThan(150);
  });
});

describe("the bundled skills", () => {
  const dir = join(import.meta.dir, "../../skills");
  const files = readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((f) => /\.(ya?ml|json)$/.test(f));

  test("there are bundled skills to check", () => {
    expect(files.length).toBeGreaterThan(0);
  });

  test("every bundled skill reads clean and the yaml package agrees", () => {
    for (const file of files) {
      const text = readFileSync(join(dir, file), "utf8");
      expect({ file, verdict: reading(text).kind }).toEqual({ file, verdict: "clean" });
      expect({ file, duplicate: yamlFindsDuplicate(text) }).toEqual({ file, duplicate: false });
    }
  });
});
