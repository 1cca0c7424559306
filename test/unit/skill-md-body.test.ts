import { describe, expect, test } from "bun:test";
import { renderSkillMdBody, shellWords } from "../../src/invoke/skill-md-body.ts";
import type { Skill } from "../../src/skill/skill.ts";

/** A SKILL.md skill as the parser makes it: free text, or named arguments; `positional` as derived. */
function skill(extra: Partial<Skill> = {}): Skill {
  return {
    id: "s",
    description: "d",
    type: "prompt",
    tags: [],
    arguments: [{ name: "arguments", required: false }],
    argumentsDeclared: false,
    exampleCount: 0,
    format: "skill-md",
    positional: true,
    ...extra,
  };
}
const named = (...names: string[]) =>
  skill({ arguments: names.map((name) => ({ name, required: false })), argumentsDeclared: true });
const render = (body: string, s: Skill, args: Record<string, string> = {}, dir: string | null = "/skills/s") =>
  renderSkillMdBody(body, s, args, dir ?? undefined);

describe("Agent Skills bodies: Claude Code's substitutions, never Handlebars", () => {
  test("$ARGUMENTS is everything given", () => {
    expect(render("Fix: $ARGUMENTS.", skill(), { arguments: "the login bug" })).toBe("Fix: the login bug.");
  });

  test("$ARGUMENTS[N] and $N are 0-based words, with shell-like quoting; out of range is empty", () => {
    const s = skill();
    expect(render("[$0][$1][$2]", s, { arguments: 'a "b c" d' })).toBe("[a][b c][d]");
    expect(render("[$ARGUMENTS[0]][$ARGUMENTS[1]]", s, { arguments: "x 'y z'" })).toBe("[x][y z]");
    expect(render("[$5][$ARGUMENTS[9]]", s, { arguments: "one" })).toBe("[][]");
  });

  test("$name is a declared argument's value; an undeclared $word stays as written", () => {
    expect(render("File $file, focus $focus, $other.", named("file", "focus"), { file: "a.ts", focus: "perf" })).toBe(
      "File a.ts, focus perf, $other.",
    );
  });

  test("$ARGUMENTS with named arguments is their values in declaration order, quoted where they hold spaces", () => {
    expect(render("$ARGUMENTS", named("a", "b"), { b: "two words", a: "one" })).toBe('one "two words"');
  });

  test("${CLAUDE_SKILL_DIR} is the folder's path, with or without arguments; inside the binary it stays as written", () => {
    expect(render("Read ${CLAUDE_SKILL_DIR}/references/x.md", skill())).toBe("Read /skills/s/references/x.md");
    expect(render("Read ${CLAUDE_SKILL_DIR}/x", skill(), {}, null)).toBe("Read ${CLAUDE_SKILL_DIR}/x");
  });

  test("arguments the body never reads are appended as ARGUMENTS: <value>", () => {
    expect(render("Summarise the diff.\n", skill(), { arguments: "main..HEAD" })).toBe(
      "Summarise the diff.\n\nARGUMENTS: main..HEAD",
    );
  });

  test("without arguments the body comes back byte for byte: placeholders, {{literals}} and !`commands` included", () => {
    const body =
      "# T\r\n\r\nUse $ARGUMENTS and $0 and $name.\n{{not.a.template}} {{#if x}}y{{/if}}\n!`git status` stays\n\n";
    expect(render(body, skill())).toBe(body);
    expect(render(body, skill(), { arguments: "" })).toBe(body);
  });

  test("prices survive: $N followed by a digit, . or , is text even where $N is a placeholder", () => {
    const body = "Plans: $10.00, $5.00 or $1,000; $0. $1, $2 and $3 here.";
    expect(render(body, skill(), { arguments: "a b c d" })).toBe(
      "Plans: $10.00, $5.00 or $1,000; $0. $1, c and d here.",
    );
  });

  test("in a skill that declares no arguments and no hint and never reads $ARGUMENTS, $N is text", () => {
    const plain = skill({ positional: false });
    expect(render("Costs $5 and $1 more.", plain, { arguments: "x" })).toBe("Costs $5 and $1 more.\n\nARGUMENTS: x");
  });

  test("{{…}} is never rendered, even with arguments", () => {
    expect(render("{{who}} $ARGUMENTS", skill(), { arguments: "x" })).toBe("{{who}} x");
  });
});

describe("shell-like words", () => {
  test("whitespace separates; double and single quotes group; a backslash escapes", () => {
    expect(shellWords(`a  "b c" 'd e' f\\ g "h \\"i\\"" ''`)).toEqual(["a", "b c", "d e", "f g", 'h "i"', ""]);
    expect(shellWords("   ")).toEqual([]);
  });
});
