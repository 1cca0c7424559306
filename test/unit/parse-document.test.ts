import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseDocument } from "yaml";
import type { Diagnostic } from "../../src/diagnostics.ts";
import * as parseDocumentModule from "../../src/storage/parse-document.ts";
import type { ParsedDocument, ParseResult } from "../../src/storage/parse-document.ts";

/** The entry point is being renamed concurrently (parseSkillDocument → parseYamlDocument): accept either. */
type Parse = (source: { file: string; text: string }) => ParseResult;
const entryPoints = parseDocumentModule as unknown as Record<string, Parse | undefined>;
const parseSkillDocument: Parse = entryPoints.parseYamlDocument ?? entryPoints.parseSkillDocument!;

function parsed(text: string, file = "skill.yaml"): ParsedDocument {
  const result = parseSkillDocument({ file, text });
  if (!result.ok) throw new Error(`expected ${JSON.stringify(text)} to parse, got: ${result.diagnostic.message}`);
  return result.doc;
}

function failure(text: string, file = "skill.yaml"): Diagnostic {
  const result = parseSkillDocument({ file, text });
  if (result.ok) throw new Error(`expected ${JSON.stringify(text)} to fail`);
  return result.diagnostic;
}

describe("YAML files", () => {
  test("valid YAML returns its data", () => {
    const text = "id: review\ntags: [a, b]\narguments:\n  - name: x\n    required: true\nprompt: |\n  Hello {{x}}\n";
    expect(parsed(text).data).toEqual({
      id: "review",
      tags: ["a", "b"],
      arguments: [{ name: "x", required: true }],
      prompt: "Hello {{x}}\n",
    });
  });

  test(".yml files are YAML too", () => {
    expect(parsed("id: a\n", "skill.yml").data).toEqual({ id: "a" });
    expect(failure("id: a\nid: b\n", "skill.yml").code).toBe("duplicate-key");
  });

  test("the data is the same whether or not the file needs the precise parser", () => {
    // Anchors make the duplicate-key scan unsure, so the second text takes the slower path.
    const plain = parsed("a: [1, 2]\nb: x\nversion: 1.0\nflag: true\nnone: ~\n").data;
    const anchored = parsed("a: &l [1, 2]\nb: x\nversion: 1.0\nflag: true\nnone: ~\n").data;
    expect(anchored).toEqual(plain);
  });

  test("aliases are expanded", () => {
    expect(parsed("a: &x [1]\nb: *x\n").data).toEqual({ a: [1], b: [1] });
  });

  test("an empty file parses to null", () => {
    expect(parsed("").data).toBeNull();
  });

  test("a duplicate top-level key is rejected at the duplicate's line and column", () => {
    const d = failure("id: a\nname: b\nid: c\n");
    expect(d).toMatchObject({
      severity: "error",
      code: "duplicate-key",
      file: "skill.yaml",
      position: { line: 3, column: 1 },
    });
    expect(d.message).toContain("duplicate key");
    expect(d.message).toStartWith('duplicate key "id" in a mapping');
    expect(d.hint).toBe("keep one of them: the file is not loaded while both are there");
  });

  test("a duplicate nested key is rejected at its indented position", () => {
    expect(failure("id: a\nmeta:\n  k: 1\n  k: 2\n").position).toEqual({ line: 4, column: 3 });
  });

  test("a duplicate inside a sequence item is rejected", () => {
    expect(failure("arguments:\n  - name: a\n    name: b\n")).toMatchObject({
      code: "duplicate-key",
      position: { line: 3, column: 5 },
    });
  });

  test("a duplicate the fast scan cannot see (flow mapping) is still rejected", () => {
    expect(failure("a: {x: 1, x: 2}\n")).toMatchObject({ code: "duplicate-key", position: { line: 1, column: 11 } });
    expect(failure("a: &anchor 1\nb: 2\na: 3\n")).toMatchObject({
      code: "duplicate-key",
      position: { line: 3, column: 1 },
    });
  });

  test("a duplicate with CRLF line endings is rejected at the right line", () => {
    expect(failure("id: a\r\nid: b\r\n")).toMatchObject({ code: "duplicate-key", position: { line: 2, column: 1 } });
  });

  test("invalid YAML is a yaml-syntax error with a position", () => {
    const cases: [string, number][] = [
      // An unclosed [ is reported at the bracket left open, not where the text ends.
      ["id: a\nb: [1, 2\nc: 3\n", 2],
      ['a: "unterminated\n', 2],
      ["a: [1, 2]]\n", 1],
      ["a: b: c\n", 1],
      ["a:\n  - x\n  y: 1\n", 3],
    ];
    for (const [text, line] of cases) {
      const d = failure(text);
      expect({ text, code: d.code, line: d.position?.line }).toEqual({ text, code: "yaml-syntax", line });
      expect(d.position!.column).toBeGreaterThanOrEqual(1);
      expect(d.message).toStartWith("invalid YAML: ");
      expect(d.message).not.toContain("\n");
    }
  });

  test("the syntax message keeps the yaml package's reason without its own line/column suffix", () => {
    const d = failure("a: [1, 2]]\n");
    expect(d.message).toContain("Unexpected");
    expect(d.message).not.toMatch(/at line \d+, column \d+/);
  });

  test("more than one document is a yaml-syntax error", () => {
    expect(failure("a: 1\n---\nb: 2\n")).toMatchObject({ code: "yaml-syntax", position: { line: 2, column: 1 } });
  });
});

describe("JSON files", () => {
  test("a JSON file parses", () => {
    expect(parsed('{"id": "a", "tags": ["x"], "n": 1.5, "ok": null}', "skill.json").data).toEqual({
      id: "a",
      tags: ["x"],
      n: 1.5,
      ok: null,
    });
    expect(parsed("[1, 2]", "skill.json").data).toEqual([1, 2]);
  });

  test("a JSON syntax error is reported as invalid JSON", () => {
    for (const text of ['{"a": 1,}', "{'a': 1}", "id: a", "", '{"a" 1}']) {
      const d = failure(text, "skill.json");
      expect({ text, code: d.code }).toEqual({ text, code: "yaml-syntax" });
      expect(d.message).toStartWith("invalid JSON: ");
      expect(d.message).not.toContain("invalid YAML");
    }
  });

  test("a JSON syntax error that is also a YAML error carries a position", () => {
    expect(failure('{"a" 1}', "skill.json").position).toEqual({ line: 1, column: 6 });
    expect(failure('{"id": "a",\n  "tags": [\n', "skill.json").position?.line).toBe(3);
    expect(failure('{"a": 1}\n{"b": 2}', "skill.json").position?.line).toBe(2);
  });

  test("deep nesting overflows no stack: exact positions where jsonc-parser's recursion reaches, YAML's past it", () => {
    expect(failure(`${"[".repeat(10_000)}x`, "skill.json").position).toEqual({ line: 1, column: 10_001 });
    expect(failure(`${"[".repeat(200_000)}x`, "skill.json").position?.line).toBe(1);
    expect(parsed(`${"[".repeat(200_000)}${"]".repeat(200_000)}`, "skill.json").data).toBeArray();
  });

  test("text that is YAML but not JSON is rejected in a .json file", () => {
    expect(failure("id: a\n", "skill.json").message).toContain("invalid JSON");
  });

  test("duplicate keys in JSON are rejected at the duplicate", () => {
    expect(failure('{"id": "a",\n "id": "b"}', "skill.json")).toMatchObject({
      code: "duplicate-key",
      position: { line: 2, column: 2 },
    });
  });

  test("duplicate keys hidden by escapes or nesting are rejected in JSON", () => {
    expect(failure('{"\\u0061": 1, "a": 2}', "skill.json").code).toBe("duplicate-key");
    expect(failure('{"o": {"k": 1, "k": 2}}', "skill.json").code).toBe("duplicate-key");
  });

  test("the same key in different JSON objects is fine", () => {
    expect(parsed('{"a": {"k": 1}, "b": [{"k": 1}, {"k": 2}]}', "skill.json").data).toEqual({
      a: { k: 1 },
      b: [{ k: 1 }, { k: 2 }],
    });
  });
});

describe("locate", () => {
  const lines = [
    "id: a", //                1
    "tags:", //                2
    "  - x", //                3
    "  - y", //                4
    "prompt: |", //            5
    "  line one", //           6
    "  line {{two", //         7
    'desc: "hello {{x"', //    8
    "single: 'ab {{c'", //     9
    "plain: abc {{d", //       10
    "meta:", //                11
    "  owner: team", //        12
    "empty:", //               13
  ];
  const text = `${lines.join("\n")}\n`;
  const doc = parsed(text);

  test("a field points at its value", () => {
    expect(doc.locate(["id"])).toEqual({ line: 1, column: 5 });
    expect(doc.locate(["tags"])).toEqual({ line: 3, column: 3 });
    expect(doc.locate(["meta", "owner"])).toEqual({ line: 12, column: 10 });
  });

  test("a sequence item is addressed by index", () => {
    expect(doc.locate(["tags", 0])).toEqual({ line: 3, column: 5 });
    expect(doc.locate(["tags", 1])).toEqual({ line: 4, column: 5 });
  });

  test("a field with an empty value points at its own line", () => {
    expect(doc.locate(["empty"])?.line).toBe(13);
  });

  test("a missing field points at the deepest existing parent", () => {
    expect(doc.locate(["missing"])).toEqual({ line: 1, column: 1 });
    expect(doc.locate(["tags", 9])).toEqual({ line: 3, column: 3 });
    expect(doc.locate(["meta", "nope"])).toEqual({ line: 12, column: 3 });
  });

  test("the empty path points at the document", () => {
    expect(doc.locate([])).toEqual({ line: 1, column: 1 });
  });

  test("a block scalar points at its header without a position inside it", () => {
    expect(doc.locate(["prompt"])).toEqual({ line: 5, column: 9 });
  });

  test("a position inside a block-scalar template maps to the file's line and column", () => {
    // Template line 2 is "line {{two"; column 6 is the first "{".
    expect(doc.locate(["prompt"], { line: 2, column: 6 })).toEqual({ line: 7, column: 8 });
    expect(doc.locate(["prompt"], { line: 1, column: 1 })).toEqual({ line: 6, column: 3 });
  });

  test("the brief's example: line 2 column 3 of a block scalar", () => {
    const d = parsed("id: a\nprompt: |\n  first\n  second\n");
    expect(d.locate(["prompt"], { line: 2, column: 3 })).toEqual({ line: 4, column: 5 });
  });

  test("a position inside single-line quoted and plain strings maps past the quote", () => {
    expect(doc.locate(["desc"], { line: 1, column: 7 })).toEqual({ line: 8, column: 14 });
    expect(doc.locate(["single"], { line: 1, column: 4 })).toEqual({ line: 9, column: 13 });
    expect(doc.locate(["plain"], { line: 1, column: 5 })).toEqual({ line: 10, column: 12 });
  });

  test("locateKey points at the key rather than the value", () => {
    expect(doc.locateKey(["meta", "owner"])).toEqual({ line: 12, column: 3 });
    expect(doc.locateKey(["tags"])).toEqual({ line: 2, column: 1 });
    expect(doc.locateKey(["empty"])).toEqual({ line: 13, column: 1 });
  });

  test("locateKey of a missing key falls back to locate", () => {
    expect(doc.locateKey(["meta", "nope"])).toEqual(doc.locate(["meta", "nope"]));
    expect(doc.locateKey(["tags", 0])).toEqual(doc.locate(["tags", 0]));
  });

  test("locating works with CRLF line endings", () => {
    const d = parsed("id: a\r\nprompt: |\r\n  a\r\n  b {{x\r\n");
    expect(d.locate(["prompt"], { line: 2, column: 3 })).toEqual({ line: 4, column: 5 });
  });

  test("locating works in JSON files", () => {
    const d = parsed('{\n  "id": "a",\n  "tags": ["x"]\n}', "skill.json");
    expect(d.locate(["tags"])).toEqual({ line: 3, column: 11 });
    expect(d.locate(["id"], { line: 1, column: 1 })).toEqual({ line: 2, column: 10 });
  });

  test("locating works for files parsed on the precise path", () => {
    const d = parsed("base: &b x\ntags:\n  - y\n");
    expect(d.locate(["tags", 0])).toEqual({ line: 3, column: 5 });
  });

  test("a document that is not a mapping answers with the document itself", () => {
    expect(parsed("just text\n").locate(["x"])).toEqual({ line: 1, column: 1 });
    expect(parsed("").locate(["x"])).toBeUndefined();
  });
});

describe("the bundled skills", () => {
  const dir = join(import.meta.dir, "../../skills");
  const files = readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((f) => /\.(ya?ml|json)$/.test(f));

  test("every bundled skill parses to the same data as the yaml package reads", () => {
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const text = readFileSync(join(dir, file), "utf8");
      const result = parseSkillDocument({ file, text });
      expect({ file, ok: result.ok }).toEqual({ file, ok: true });
      if (result.ok) expect(result.doc.data).toEqual(parseDocument(text).toJS());
    }
  });
});

describe("hostile and unusual input", () => {
  test("an unresolved alias is a yaml-syntax diagnostic, not an exception", () => {
    const result = parseSkillDocument({ file: "s.yaml", text: "x: *nope\n" });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.diagnostic.code).toBe("yaml-syntax");
  });

  const bomb = (() => {
    const lines = ["a: &a [x, x, x, x, x, x, x, x, x, x]"];
    for (let i = 1; i < 9; i++) {
      const name = String.fromCharCode(97 + i);
      lines.push(
        `${name}: &${name} [${Array(10)
          .fill(`*${String.fromCharCode(96 + i)}`)
          .join(", ")}]`,
      );
    }
    return `${lines.join("\n")}\n`;
  })();
  test("an alias bomb is a diagnostic, not an exception", () => {
    expect(parseSkillDocument({ file: "s.yaml", text: bomb }).ok).toBe(false);
  });

  test("an alias bomb is refused by what its aliases would add, at the first alias, however large the rest of the file", () => {
    // Beside a few thousand nested keys the yaml package's own count re-walked the document per alias: ~30 s.
    const nested = Array.from({ length: 1000 }, (_, i) => `k${i}: {a: {b: {c: [${i}]}}}`).join("\n");
    const d = failure(`${bomb}${nested}\n`);
    expect(d).toMatchObject({ code: "yaml-syntax", position: { line: 2, column: 8 } });
    expect(d.message).toBe(
      `invalid YAML: its aliases expand it by 1234567800 values, over the limit of ${parseDocumentModule.MAX_ALIAS_EXPANSION} (a guard against alias bombs, a resource exhaustion attack)`,
    );
  });

  test("an alias inside the node it names is refused (it would expand forever)", () => {
    expect(failure("a: &s [1, *s]\n")).toMatchObject({
      code: "yaml-syntax",
      position: { line: 1, column: 11 },
      message: expect.stringContaining("an alias names a node that contains it"),
    });
  });

  test("many aliases of a small node load: the limit is on what they add, not on how many there are", () => {
    const text = `base: &b {x: 1}\n${Array.from({ length: 300 }, (_, i) => `a${i}: *b`).join("\n")}\n`;
    const data = parsed(text).data as Record<string, unknown>;
    expect(data.a299).toEqual({ x: 1 });
    // 100 aliases of a list of m items add 100 × m values: exactly at the limit loads, past it does not.
    const adding = (m: number) =>
      `base: &b [${Array(m).fill("x").join(", ")}]\n${Array.from({ length: 100 }, (_, i) => `a${i}: *b`).join("\n")}\n`;
    const m = parseDocumentModule.MAX_ALIAS_EXPANSION / 100;
    expect(parseSkillDocument({ file: "s.yaml", text: adding(m) }).ok).toBe(true);
    expect(failure(adding(m + 1)).message).toContain(`its aliases expand it by ${100 * (m + 1)} values`);
  });

  // CPU-heavy (~1 s on an idle 2-core machine): its own timeout, with room for a busy machine.
  test("a duplicate among 20,000 keys is found at its position (the yaml package's own check compared every pair)", () => {
    const keys = Array.from({ length: 20_000 }, (_, i) => `k${i}: ${i}`);
    keys.push("k7: again");
    expect(failure(`a: &x 1\n${keys.join("\n")}\n`)).toMatchObject({
      code: "duplicate-key",
      position: { line: 20_002, column: 1 },
    });
    const json = `{${Array.from({ length: 20_000 }, (_, i) => `"k${i}": ${i}`).join(",")},"k3": 0}`;
    expect(failure(json, "skill.json")).toMatchObject({ code: "duplicate-key", position: { line: 1 } });
  }, 60_000);

  test("the first problem in the text wins: a duplicate before a syntax error, or a syntax error before a duplicate", () => {
    expect(failure("a: &x 1\na: 2\nb: [\n")).toMatchObject({ code: "duplicate-key", position: { line: 2, column: 1 } });
    expect(failure("a: &x [\nb: 1\nb: 2\n")).toMatchObject({ code: "yaml-syntax" });
  });

  test("a duplicate key after an empty value is located at the duplicate, not the end of the previous line", () => {
    expect(failure("id: a\ndescription:\nid: b\n").position).toEqual({ line: 3, column: 1 });
  });

  test("lone-CR line breaks cannot smuggle a duplicate key through the fast path", () => {
    // Bun.YAML.parse reads "\r" as a line break (result {id: "b"}); the scan splits on "\n" only.
    expect(parseSkillDocument({ file: "s.yaml", text: "id: a\rid: b\r" }).ok).toBe(false);
  });

  test("a position in a more-indented block-scalar line maps to the right column", () => {
    // Template line 2 is "  {{x": column 3 is "{", which is column 5 of file line 3.
    expect(parsed("prompt: |\n  a\n    {{x\n").locate(["prompt"], { line: 2, column: 3 })).toEqual({
      line: 3,
      column: 5,
    });
  });
});

/**
 * "Nested mappings are not allowed in compact mappings" stands for two mistakes with different
 * fixes; "All mapping items must start at the same column" and "Sequence item without - indicator"
 * for a key out of line. Each gets the fix in words, at the key or value to change.
 */
describe("indentation mistakes, told apart", () => {
  const CASES: [text: string, position: { line: number; column: number }, message: string, hint: string][] = [
    [
      "description: x\n  type: prompt\n",
      { line: 2, column: 3 },
      '"type:" on line 2 is indented deeper than "description:" on line 1',
      'un-indent line 2 to column 1, in line with "description:"',
    ],
    [
      "a:\n  b: some text\n\n    c: 2\n",
      { line: 4, column: 5 },
      '"c:" on line 4 is indented deeper than "b:" on line 2',
      "un-indent line 4 to column 3",
    ],
    [
      "- name: x\n    required: true\n",
      { line: 2, column: 5 },
      '"required:" on line 2 is indented deeper than "name:" on line 1',
      "un-indent line 2 to column 3",
    ],
    [
      "a: x y\n  more words\n  b: c\n",
      { line: 3, column: 3 },
      '"b:" on line 3 is indented deeper than "a:" on line 1',
      "un-indent line 3 to column 1",
    ],
    [
      "description: Fix: the bug\n",
      { line: 1, column: 14 },
      'the value of "description" holds ": " (column 17)',
      'quote the value: description: "Fix: the bug"',
    ],
    [
      'note: say "hi": twice\n',
      { line: 1, column: 7 },
      'the value of "note" holds ": "',
      "quote the value: note: 'say \"hi\": twice'",
    ],
    [
      "description: 'x'\n  type: prompt\n",
      { line: 2, column: 3 },
      '"type:" on line 2 is indented deeper than "description:" on line 1, which has a value already',
      'un-indent line 2 to column 1, in line with "description:"',
    ],
    [
      "a:\n  b: 1\n c: 2\n",
      { line: 3, column: 2 },
      '"c:" on line 3 starts at column 2, in line with no key above it',
      'move it to column 3 (in line with "b:" on line 2) or column 1 (in line with "a:" on line 1)',
    ],
    [
      "a:\n  - name: who\n   description: d\n",
      { line: 3, column: 4 },
      '"description:" on line 3 starts at column 4',
      'column 5 (in line with "name:" on line 2) or column 1',
    ],
  ];
  for (const [text, position, message, hint] of CASES) {
    test(JSON.stringify(text), () => {
      const d = failure(text);
      expect(d.code).toBe("yaml-syntax");
      expect(d.position).toEqual(position);
      expect(d.message).toStartWith(`invalid YAML: ${message}`);
      expect(d.hint).toContain(hint);
      expect(`${d.message} ${d.hint}`).not.toContain("compact mappings");
    });
  }

  test("lines named in the words count from lineBase (a SKILL.md frontmatter), positions from the text", () => {
    const result = parseSkillDocument({ file: "SKILL.md", text: "name: x\ndescription: d\n  license: MIT\n" });
    expect(result.ok).toBe(false);
    const shifted = parseDocumentModule.parseYamlDocument(
      { file: "SKILL.md", text: "name: x\ndescription: d\n  license: MIT\n" },
      { lineBase: 1 },
    );
    if (result.ok || shifted.ok) throw new Error("expected failures");
    expect(result.diagnostic.hint).toStartWith("un-indent line 3 to column 1");
    expect(shifted.diagnostic.hint).toStartWith("un-indent line 4 to column 1");
    expect(shifted.diagnostic.position).toEqual({ line: 3, column: 3 });
  });

  test("other syntax errors keep the general advice", () => {
    expect(failure("a: [x\n").hint).toContain("close it with ]");
    expect(failure("a: b\n\tc: d\n").hint).toBe("indent with spaces, not tabs");
  });
});

describe("hostile lines on the way to a message", () => {
  // Each took quadratic time in the duplicate-key scan's key pattern (35 s for 100,000 spaces);
  // now milliseconds. The timeout leaves a margin of hundreds either way.
  test("a 300,000-space line without a colon, and a 300,000-character key, are judged at once", () => {
    const spaces = failure(`a: x\n  b: y\nc${" ".repeat(300_000)}d\n`);
    expect(spaces.position).toEqual({ line: 2, column: 3 });
    const long = failure(`a:\n  b: 1\n c${" ".repeat(300_000)}x: 2\n`);
    expect(long.message.length).toBeLessThan(300);
  }, 60_000);
});
