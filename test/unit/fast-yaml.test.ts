import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseDocument } from "yaml";
import { fastParseYaml } from "../../src/storage/fast-yaml.ts";
import { mulberry32 } from "../helpers/random.ts";

/** The authority: what the `yaml` package reads, or undefined when it reports any error. */
function authority(text: string): { data: unknown } | undefined {
  const doc = parseDocument(text, { uniqueKeys: true });
  if (doc.errors.length > 0) return undefined;
  try {
    return { data: doc.toJS({ maxAliasCount: 100 }) };
  } catch {
    return undefined;
  }
}

/** Fast answers must equal the authority's; returns whether the fast reader answered. */
function agrees(text: string): boolean {
  const fast = fastParseYaml(text);
  if (!fast) return false;
  const truth = authority(text);
  if (!truth) throw new Error(`fast reader accepted a document the yaml package rejects:\n${text}`);
  try {
    expect(fast.data).toEqual(truth.data);
  } catch (error) {
    throw new Error(`fast reader disagrees on:\n${JSON.stringify(text)}\n${String(error)}`);
  }
  return true;
}

describe("fast YAML reader: what it reads", () => {
  test("a skill file with a literal block, flow collections, comments and scalars of every kind", () => {
    const text = [
      "# a comment",
      "id: review-pr",
      "name: Review a PR   # trailing comment",
      'description: "Review: \\"quoted\\" \\u00e9"',
      "type: prompt",
      "tags: [review, 'it''s', \"x y\"]",
      "version: 1.2",
      "count: 42",
      "on: true",
      "off: False",
      "nothing: ~",
      "empty:",
      "arguments:",
      "  - {name: context, description: Extra context, required: false}",
      "  - name: focus",
      "    required: true",
      "    enum: [a, b]",
      "prompt: |",
      "  Line one with {{context}}",
      "",
      "    indented # not a comment",
      "  last",
      "",
      "after: x",
      "",
    ].join("\n");
    expect(agrees(text)).toBe(true);
    expect(fastParseYaml(text)!.data).toMatchObject({
      id: "review-pr",
      version: 1.2,
      count: 42,
      on: true,
      off: false,
      nothing: null,
      empty: null,
      tags: ["review", "it's", "x y"],
    });
  });

  test("chomping: clip keeps one final newline, strip none, keep every trailing one when there are none", () => {
    for (const header of ["|", "|-", "|+"]) {
      expect(agrees(`a: ${header}\n  x\n  y\nb: 1\n`)).toBe(true);
    }
  });

  test("folded blocks: lines of text join with a space, empty lines between them become line breaks", () => {
    for (const header of [">", ">-", ">+"]) {
      expect(agrees(`a: ${header}\n  one\n  two\n\n  three\n\n\n  four  \n  five\nb: 1\n`)).toBe(true);
    }
    expect(fastParseYaml("description: >-\n  Commit type. feat: new feature;\n  fix: bug fix\nx: 1\n")!.data).toEqual({
      description: "Commit type. feat: new feature; fix: bug fix",
      x: 1,
    });
  });

  test("a sequence at its key's indentation and nested mappings", () => {
    expect(agrees("a:\n- 1\n- x: y\n  z: [1, {k: v}]\nb:\n  c:\n    d: e\n")).toBe(true);
  });

  test("CRLF line breaks read like LF", () => {
    const text = "id: a\r\nprompt: |\r\n  one\r\n  two\r\n";
    expect(agrees(text)).toBe(true);
    expect(fastParseYaml(text)!.data).toEqual({ id: "a", prompt: "one\ntwo\n" });
  });

  test("an empty document and a comment-only document are null", () => {
    expect(agrees("")).toBe(true);
    expect(agrees("# only\n\n")).toBe(true);
    expect(agrees("---\nid: a\n")).toBe(true);
  });
});

describe("fast YAML reader: what it leaves to the yaml package", () => {
  const unsure = [
    ["a duplicate key", "id: a\nid: b\n"],
    ["a duplicate key in a flow mapping", "a: {x: 1, x: 2}\n"],
    ["keys that resolve alike", "1: a\n01: b\n"],
    ["an alias", "a: &x 1\nb: *x\n"],
    ["a tag", "a: !!str 1\n"],
    ["an indentation indicator", "a: >2\n  x\n"],
    ["a folded line indented deeper than its block", "a: >\n  x\n    y\n"],
    ["a folded block starting with an empty line", "a: >\n\n  x\n"],
    ["a multi-line plain scalar", "a: one\n  two\n"],
    ["a multi-line flow sequence", "a: [1,\n  2]\n"],
    ["a tab in indentation", "a:\n\tb: 1\n"],
    ["a second document", "a: 1\n---\nb: 2\n"],
    ["a root sequence", "- a\n- b\n"],
    ["a merge key", "<<: {a: 1}\n"],
    ["a nested mapping on one line", "a: b: c\n"],
    ["a byte-order mark", "\ufeffa: 1\n"],
    ["a lone carriage return", "a: 1\rb: 2\n"],
    ["a block scalar ending the file without a newline", "a: |\n  x"],
    ["bad indentation", "a: 1\n  b: 2\n"],
    ["an unknown escape", 'a: "\\q"\n'],
    ["the __proto__ key", "__proto__: 1\n"],
  ] as const;
  for (const [what, text] of unsure) {
    test(what, () => {
      expect(fastParseYaml(text)).toBeUndefined();
    });
  }
});

describe("fast YAML reader: agreement with the yaml package", () => {
  test("every built-in skill and every test fixture it reads", () => {
    const root = join(import.meta.dir, "..", "..", "skills");
    let read = 0;
    for (const name of readdirSync(root, { recursive: true }) as string[]) {
      if (!/\.ya?ml$/.test(name)) continue;
      if (agrees(readFileSync(join(root, name), "utf8"))) read++;
    }
    expect(read).toBeGreaterThan(5);
  });

  const rng = mulberry32(20261203);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rng() * items.length)]!;
  const scalars = [
    "plain text",
    "x",
    "42",
    "-7",
    "+3",
    "0o17",
    "0x1F",
    "1.5",
    ".5",
    "1e3",
    "1.0e-2",
    ".inf",
    "-.Inf",
    ".nan",
    "true",
    "False",
    "TRUE",
    "null",
    "~",
    "Null",
    "yes",
    "no",
    "on",
    "off",
    "01",
    "0",
    "a#b",
    "a # comment",
    "http://x.y/z?q=1",
    "{{name}}",
    "$10.00",
    "-x",
    "x-",
    "é unicode",
    "a: b",
    "a:b",
    "[x]",
    "x, y",
    "'single ''q'''",
    '"double \\"q\\" \\n \\t \\u263A \\x41"',
    '"bad \\q"',
    "'unclosed",
    '"',
    "",
    "  spaced  ",
    "@at",
    "`tick",
    "!bang",
    "&anchor",
    "*alias",
    "%pct",
    "?q",
    "- dash",
    ">gt",
    "|bar",
    "...",
    "---",
    "a\tb",
    "key:",
    "<<",
    "=eq",
    ";semi",
    "(paren)",
    "\\back",
  ];
  const keys = [
    "id",
    "name",
    "description",
    "type",
    "tags",
    "a",
    "b",
    "b",
    "x y",
    "'quoted'",
    '"dq"',
    "1",
    "01",
    "true",
    "null",
    "-k",
    "k-",
    "é",
    "__proto__",
    "a#b",
    "<<",
    "[f]",
  ];
  const comment = () => (rng() < 0.2 ? pick(["  # c", " #", "#nc", "   # trailing"]) : "");
  const blank = () => (rng() < 0.15 ? pick(["", "  ", "# comment", "  # indented comment", "\t"]) : undefined);

  function block(indent: number, depth: number): string[] {
    const pad = " ".repeat(indent);
    const out: string[] = [];
    const entries = 1 + Math.floor(rng() * 4);
    const sequence = depth > 0 && rng() < 0.25;
    for (let e = 0; e < entries; e++) {
      const b = blank();
      if (b !== undefined) out.push(b);
      const head = sequence ? `${pad}- ` : `${pad}${pick(keys)}:`;
      const kind = rng();
      if (kind < 0.45) out.push(`${head}${sequence ? "" : " "}${pick(scalars)}${comment()}`);
      else if (kind < 0.6) {
        const items = Array.from({ length: Math.floor(rng() * 4) }, () =>
          rng() < 0.3 ? `{${pick(keys)}: ${pick(scalars)}}` : pick(scalars),
        );
        out.push(
          `${head}${sequence ? "" : " "}${rng() < 0.5 ? `[${items.join(", ")}]` : `{${items.map((v, i) => `${pick(keys)}${i}: ${v}`).join(", ")}}`}${comment()}`,
        );
      } else if (kind < 0.8) {
        out.push(`${head}${sequence ? "" : " "}${pick(["|", "|-", "|+", ">", "|2"])}${comment()}`);
        const bodyIndent = indent + pick([1, 2, 2, 2, 4]);
        const lines = 1 + Math.floor(rng() * 5);
        for (let l = 0; l < lines; l++) {
          const extra = rng() < 0.2 ? " ".repeat(1 + Math.floor(rng() * 3)) : "";
          out.push(
            rng() < 0.15
              ? pick(["", " ".repeat(bodyIndent), " ".repeat(bodyIndent + 2)])
              : `${" ".repeat(bodyIndent)}${extra}${pick(scalars)}`,
          );
        }
      } else if (depth < 3) {
        out.push(`${head}${comment()}`);
        const nested = indent + (sequence ? 2 : pick([0, 2, 2, 3]));
        out.push(...block(nested, depth + 1));
      } else out.push(`${head}`);
    }
    return out;
  }

  test("4,000 generated documents: whatever the fast reader answers, the yaml package answers the same", () => {
    let answered = 0;
    for (let n = 0; n < 4000; n++) {
      const eol = rng() < 0.1 ? "\r\n" : "\n";
      let text = block(0, 0).join(eol);
      if (rng() < 0.9) text += eol;
      if (rng() < 0.05) text = `---${eol}${text}`;
      if (agrees(text)) answered++;
    }
    // The generator is hostile on purpose, but a reader that gave up on everything would pass
    // the agreement check vacuously.
    expect(answered).toBeGreaterThan(400);
  });

  test("2,000 generated folded blocks: whatever the fast reader answers, the yaml package answers the same", () => {
    let answered = 0;
    for (let n = 0; n < 2000; n++) {
      const indent = pick([1, 2, 4]);
      const body = Array.from({ length: 1 + Math.floor(rng() * 6) }, () =>
        rng() < 0.25
          ? pick(["", " ".repeat(indent), " ".repeat(indent + 1), "\t"])
          : `${" ".repeat(indent)}${rng() < 0.1 ? pick([" ", "\t"]) : ""}${pick(scalars)}${rng() < 0.1 ? "  " : ""}`,
      );
      const eol = rng() < 0.1 ? "\r\n" : "\n";
      const head = rng() < 0.3 ? `- ${pick([">", ">-", ">+"])}` : `k: ${pick([">", ">-", ">+", "> # c"])}`;
      const text = [head, ...body, rng() < 0.5 ? (head.startsWith("-") ? "- end" : "after: 1") : ""].join(eol) + eol;
      if (agrees(head.startsWith("-") ? `list:${eol}${text}` : text)) answered++;
    }
    expect(answered).toBeGreaterThan(500);
  });

  test("realistic skill files are all read on the fast path", () => {
    for (let n = 0; n < 300; n++) {
      const args = Array.from(
        { length: Math.floor(rng() * 3) },
        (_, i) => `  - {name: arg${i}, description: The arg ${i} to use, required: ${rng() < 0.5}}`,
      );
      const body = Array.from({ length: 1 + Math.floor(rng() * 20) }, () =>
        rng() < 0.2
          ? ""
          : `  ${pick(["## Task", "- **x**: {{x}}", "Explain the thing.", "```ts", "const a = {b: 1};", "```"])}`,
      );
      const text = [
        `id: skill-${n}`,
        `name: Skill ${n}`,
        "description: Prompt to do a thing",
        "type: prompt",
        "tags: [t01, t02]",
        ...(args.length ? ["arguments:", ...args] : []),
        "prompt: |",
        ...body,
        "",
      ].join("\n");
      expect(agrees(text)).toBe(true);
    }
  });
});
