import { describe, expect, test } from "bun:test";
import { lineCount } from "../../src/skill/line-count.ts";
import { parseSkillMd } from "../../src/skill/skill-md/parse-skill-md.ts";

/** The body's findings when SKILL.md's body starts on line 5. */
function bodyFindings(body: string) {
  const parsed = parseSkillMd({
    frontmatter: { name: "x", description: "y" },
    locators: { locate: () => undefined, locateKey: () => undefined },
    body,
    bodyLine: 5,
    folderName: "x",
    examples: [],
  });
  return parsed.diagnostics.map((d) => ({ code: d.code, message: d.message, position: d.position }));
}

describe("a body's length in lines", () => {
  test("a final newline ends the last line; without one the last line still counts; empty is one line", () => {
    expect(lineCount("")).toBe(1);
    expect(lineCount("a")).toBe(1);
    expect(lineCount("a\n")).toBe(1);
    expect(lineCount("a\nb")).toBe(2);
    expect(lineCount("a\n\n")).toBe(2);
    expect(lineCount("\n")).toBe(1);
    expect(lineCount("a\r\nb\r\n")).toBe(2);
    expect(lineCount("a\rb\u2028c")).toBe(1);
  });

  test("exactly 500 lines, with or without a final newline, is within the limit", () => {
    expect(bodyFindings("l\n".repeat(500))).toEqual([]);
    expect(bodyFindings(`${"l\n".repeat(499)}l`)).toEqual([]);
    expect(bodyFindings("é\r\n".repeat(500))).toEqual([]);
  });

  test("501 lines is over it, at the body's first line, with the count", () => {
    const expected = [
      {
        code: "body-too-long",
        message: "the body is 501 lines, over the 500 the specification recommends",
        position: { line: 5, column: 1 },
      },
    ];
    expect(bodyFindings("l\n".repeat(501))).toEqual(expected);
    expect(bodyFindings(`${"l\n".repeat(500)}l`)).toEqual(expected);
    expect(bodyFindings(`${"l\n".repeat(500)}\n`)).toEqual(expected);
  });
});

describe("!`command` in a body", () => {
  test("the first complete one is reported where it starts, past ones that never close on their line", () => {
    const body = "a !`` b\nc !`open\n`\n  see !`git status` and !`ls`\n";
    expect(bodyFindings(body)).toEqual([
      {
        code: "shell-not-run",
        message: "!`git status` is served as written: this server never runs commands",
        position: { line: 8, column: 7 },
      },
    ]);
  });

  test("one at the very start, and !! before it, are found", () => {
    expect(bodyFindings("!!`x`")[0]).toMatchObject({
      message: expect.stringMatching(/^!`x` /),
      position: { line: 5, column: 2 },
    });
  });

  test("a ! and a backtick apart, or a lone !`, are no command", () => {
    expect(bodyFindings("! `x`\n!\n`x`\nend !`")).toEqual([]);
  });
});
