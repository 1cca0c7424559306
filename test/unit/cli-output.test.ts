import { describe, expect, test } from "bun:test";
import { colourDiagnostic, colourEnabled, palette } from "../../src/cli-output/colour.ts";
import { closest, didYouMean, editDistance } from "../../src/suggest.ts";
import { mulberry32 } from "../helpers/random.ts";
import { formatTable, truncate } from "../../src/cli-output/table.ts";
import { formatDiagnostic } from "../../src/diagnostics.ts";
import { createLogger } from "../../src/serve/log.ts";
import { coerceArgument } from "../../src/commands/support/arguments.ts";
import { defaultLayer } from "../../src/commands/new.ts";
import type { Skill } from "../../src/skill/skill.ts";

describe("colour", () => {
  test("only on a terminal, and never with NO_COLOR set to anything", () => {
    expect(colourEnabled(true, {})).toBe(true);
    expect(colourEnabled(false, {})).toBe(false);
    expect(colourEnabled(undefined, {})).toBe(false);
    expect(colourEnabled(true, { NO_COLOR: "1" })).toBe(false);
    // no-color.org: an empty NO_COLOR does not count.
    expect(colourEnabled(true, { NO_COLOR: "" })).toBe(true);
  });

  test("a disabled palette returns text unchanged; an enabled one paints only the severity word", () => {
    const line = "a.yaml:1:2: error: skipped: error in text";
    expect(colourDiagnostic(line, palette(false))).toBe(line);
    expect(colourDiagnostic(line, palette(true))).toBe("a.yaml:1:2: \x1b[31merror\x1b[39m: skipped: error in text");
  });
});

describe("suggestions", () => {
  test("a typo finds its command or flag; something unrelated finds nothing", () => {
    expect(closest("lsit", ["list", "show", "test"])).toBe("list");
    expect(closest("--tyep", ["--type", "--tag", "--layer"])).toBe("--type");
    expect(closest("valdiate", ["validate", "render"])).toBe("validate");
    expect(closest("ren", ["render", "list"])).toBe("render");
    expect(closest("xyzzy", ["list", "show"])).toBeUndefined();
    expect(didYouMean("shwo", ["show"])).toBe(' (did you mean "show"?)');
    expect(didYouMean("zzz", ["show"])).toBe("");
  });

  /** The textbook table, for comparison with the three-row one. */
  function referenceDistance(a: string, b: string, swaps = true): number {
    const d = Array.from({ length: a.length + 1 }, (_, i) =>
      Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
    );
    for (let i = 1; i <= a.length; i++) {
      for (let j = 1; j <= b.length; j++) {
        d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
        if (swaps && i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
          d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
      }
    }
    return d[a.length]![b.length]!;
  }

  test("the edit distance (three rows, no table) agrees with the textbook one on random words", () => {
    const random = mulberry32(11);
    const word = () =>
      Array.from({ length: Math.floor(random() * 9) }, () => "abcd"[Math.floor(random() * 4)]).join("");
    for (let i = 0; i < 2000; i++) {
      const [a, b] = [word(), word()];
      expect({ a, b, d: editDistance(a, b) }).toEqual({ a, b, d: referenceDistance(a, b) });
    }
    expect(editDistance("requried", "required")).toBe(1);
    expect(editDistance("", "abc")).toBe(3);
  });

  test("with a limit, any distance beyond it is limit + 1; without swaps, it is Levenshtein's (search's typos)", () => {
    const random = mulberry32(12);
    const word = () =>
      Array.from({ length: Math.floor(random() * 12) }, () => "abc"[Math.floor(random() * 3)]).join("");
    for (let i = 0; i < 2000; i++) {
      const [a, b, limit] = [word(), word(), Math.floor(random() * 4)];
      expect({ a, b, limit, d: editDistance(a, b, { limit }) }).toEqual({
        a,
        b,
        limit,
        d: Math.min(referenceDistance(a, b), limit + 1),
      });
      expect({ a, b, d: editDistance(a, b, { swaps: false }) }).toEqual({ a, b, d: referenceDistance(a, b, false) });
    }
    expect(editDistance("auidt", "audit", { limit: 1 })).toBe(1);
    expect(editDistance("auidt", "audit", { limit: 1, swaps: false })).toBe(2);
  });

  test("a candidate whose length is out of reach is not compared, yet a prefix still suggests it", () => {
    expect(closest("propertiesxxxxx", ["properties"])).toBeUndefined();
    expect(closest("prop", ["properties", "pattern"])).toBe("properties");
    expect(closest("x".repeat(100_000), ["properties"])).toBeUndefined();
  });
});

describe("tables", () => {
  test("columns are padded to the widest cell, with no trailing spaces", () => {
    expect(
      formatTable([
        ["ID", "TYPE"],
        ["review-pr", "prompt"],
        ["x", ""],
      ]),
    ).toBe("ID         TYPE\nreview-pr  prompt\nx\n");
  });

  test("the last column is cut to the terminal width", () => {
    const out = formatTable([["a", "a long description here"]], { maxWidth: 12 });
    expect(out).toBe("a  a long d…\n");
    expect(truncate("abc", 3)).toBe("abc");
  });

  test("a cell's controls are shown as escapes, and the columns are padded to what is printed", () => {
    const out = formatTable([
      ["CLIENT", "USES"],
      ["evil\x1b]52;c;eA==\x07\u009b2J", "3"],
      ["ok", "1\r\nforged line"],
    ]);
    expect(out).toBe(
      "CLIENT                          USES\nevil\\x1b]52;c;eA==\\x07\\u009b2J  3\nok                              1 forged line\n",
    );
  });

  test("a painted cell is styled after it is made visible and cut; widths ignore the style", () => {
    const colours = palette(true);
    const out = formatTable(
      [
        ["A", "STATE"],
        ["x\x1b", "installed: a long detail"],
      ],
      { maxWidth: 20, paint: (row, column) => (row === 1 && column === 1 ? colours.green : undefined) },
    );
    expect(out).toBe("A      STATE\nx\\x1b  \x1b[32minstalled: a\u2026\x1b[39m\n");
  });
});

describe("diagnostics and the operator's log as a terminal shows them", () => {
  test("formatDiagnostic makes the quoted text (and the file name) visible, on one line", () => {
    const line = formatDiagnostic({
      severity: "warning",
      code: "unknown-field",
      file: "/p/\x1b[2Jx.yaml",
      position: { line: 4, column: 1 },
      message: 'unknown field "colour\x1b]52;c;eA==\x07" is ignored',
      hint: "did you mean \u202e?\nforged: error: x",
    });
    expect(line).toBe(
      '/p/\\x1b[2Jx.yaml:4:1: warning: unknown field "colour\\x1b]52;c;eA==\\x07" is ignored — did you mean \\u202e? forged: error: x',
    );
  });

  test("the text log shows a client's name as escapes on one line; the JSON log keeps it exact", () => {
    const written: string[] = [];
    createLogger({}, (t) => written.push(t)).info('client "evil\x1b]0;t\x07\u009b"\nforged');
    createLogger({ format: "json" }, (t) => written.push(t)).warn("evil\u009b");
    expect(written[0]).toBe('[skill-central] client "evil\\x1b]0;t\\x07\\u009b" forged\n');
    expect((JSON.parse(written[1]!) as { message: string }).message).toBe("evil\u009b");
  });
});

describe("--arg values", () => {
  const tool = {
    type: "tool",
    inputSchema: {
      type: "object",
      properties: {
        n: { type: "integer" },
        flag: { type: "boolean" },
        name: { type: "string" },
        either: { type: ["string", "null"] },
      },
    },
  } as unknown as Skill;

  test("are JSON for a tool property whose type is not a string, text otherwise", () => {
    expect(coerceArgument(tool, "n", "3")).toBe(3);
    expect(coerceArgument(tool, "flag", "true")).toBe(true);
    expect(coerceArgument(tool, "n", "three")).toBe("three");
    expect(coerceArgument(tool, "name", "3")).toBe("3");
    expect(coerceArgument(tool, "either", "null")).toBe("null");
    expect(coerceArgument(tool, "unknown", "3")).toBe("3");
    expect(coerceArgument({ ...tool, type: "prompt" } as Skill, "n", "3")).toBe("3");
  });
});

describe("where `new` writes without --layer", () => {
  const layer = (name: string, priority: number, origin = "skill-central.yaml") => ({
    name,
    dir: `/p/${name}`,
    priority,
    origin,
    source: { kind: "path" as const, path: `/p/${name}` },
  });

  test("the highest-priority layer, the later one on a tie, never the built-in one", () => {
    expect(defaultLayer([layer("builtin", 0, "built-in"), layer("team", 50), layer("project", 100)], "/p").name).toBe(
      "project",
    );
    expect(defaultLayer([layer("a", 10), layer("b", 10)], "/p").name).toBe("b");
    expect(defaultLayer([layer("builtin", 0, "built-in")], "/p")).toMatchObject({
      name: "project",
      dir: "/p/.skills",
      priority: 100,
    });
  });

  test("never a git or url layer: its folder is a verified copy of what was fetched", () => {
    const remote = [
      { ...layer("team", 90), source: { kind: "git" as const, url: "https://x/y.git", ref: "HEAD", path: "" } },
      { ...layer("vendor", 80), source: { kind: "well-known" as const, url: "https://x/index.json" } },
    ];
    expect(defaultLayer([...remote, layer("mine", 10)], "/p").name).toBe("mine");
    expect(defaultLayer(remote, "/p").dir).toBe("/p/.skills");
  });
});
