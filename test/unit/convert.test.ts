import { describe, expect, test } from "bun:test";
import { toSkillMd, toYaml } from "../../src/skill/convert.ts";
import type { Skill } from "../../src/skill/skill.ts";

const yamlSkill = (extra: Partial<Skill> = {}): Skill => ({
  id: "review",
  description: "Review: a file",
  type: "prompt",
  tags: ["code", "review"],
  arguments: [
    { name: "file", description: "The file", required: true },
    { name: "focus", required: false },
  ],
  argumentsDeclared: true,
  exampleCount: 0,
  ...extra,
});

describe("YAML → SKILL.md", () => {
  test("plain {{argument}} tags become $argument; blocks stay as text and are reported; tags and version go to metadata", () => {
    const result = toSkillMd(yamlSkill({ version: "1.0", title: "Review" }), {
      template: "Review {{file}}{{#if focus}} for {{focus}}{{/if}} {{ file }}.",
      examples: [{ arguments: { file: "a" }, contains: ["a"] }],
    });
    if ("refused" in result) throw new Error(result.refused);
    expect(result.files).toEqual([
      {
        path: "SKILL.md",
        text: '---\nname: review\ndescription: "Review: a file"\narguments: [file, focus]\nmetadata:\n  tags: "code review"\n  version: "1.0"\n  title: "Review"\n---\nReview $file{{#if focus}} for $focus{{/if}} $file.',
      },
      { path: "examples.yaml", text: '- {"arguments":{"file":"a"},"contains":["a"]}\n' },
    ]);
    expect(result.lost).toEqual([
      "2 Handlebars tag(s) other than plain arguments (blocks, paths, helpers) stay in the body as text: a SKILL.md body is not a template",
      'the title "Review" (name:) has no SKILL.md field; it is kept in metadata.title',
      "argument descriptions, required flags and enum values (file) have no SKILL.md form: arguments become optional names",
      "examples move to examples.yaml; SKILL.md bodies render without Handlebars, so check them with `skill-central test`",
    ]);
  });

  test("a tool has no SKILL.md form", () => {
    expect(toSkillMd(yamlSkill({ type: "tool" }), { examples: [] })).toEqual({
      refused: '"review" is a tool: the Agent Skills format has prompts only, so a tool has no SKILL.md form',
    });
  });
});

describe("SKILL.md → YAML", () => {
  const folder = (extra: Partial<Skill> = {}): Skill => ({
    id: "pdf",
    description: "PDFs",
    type: "prompt",
    tags: [],
    arguments: [{ name: "arguments", description: "<file>", required: false }],
    argumentsDeclared: false,
    exampleCount: 0,
    format: "skill-md",
    positional: true,
    frontmatter: { name: "pdf", description: "PDFs", "argument-hint": "<file>", "allowed-tools": "Read" },
    ...extra,
  });

  test("$ARGUMENTS becomes {{arguments}}; literal {{ is escaped so it renders as written; what YAML cannot carry is listed", () => {
    const result = toYaml(
      folder(),
      { template: "Read $ARGUMENTS; $0 first; ${CLAUDE_SKILL_DIR}/x; {{literal}} costs $10.00\n", examples: [] },
      ["SKILL.md", "scripts/x.py"],
    );
    expect(result.files).toEqual([
      {
        path: "pdf.yaml",
        text: 'id: pdf\ndescription: "PDFs"\ntype: prompt\narguments:\n  - name: arguments\n    description: "<file>"\nprompt: |\n  Read {{arguments}}; $0 first; ${CLAUDE_SKILL_DIR}/x; \\{{literal}} costs $10.00\n',
      },
    ]);
    expect(result.lost).toEqual([
      "1 positional placeholder(s) ($N, $ARGUMENTS[N]) have no YAML form and stay as text",
      "${CLAUDE_SKILL_DIR} has no YAML form (a YAML skill has no folder) and stays as text",
      "the folder's other files (scripts/x.py) have no place in a YAML skill and are not copied",
      "frontmatter fields allowed-tools have no YAML form",
    ]);
  });

  test("declared arguments: $name becomes {{name}}, an undeclared $word stays", () => {
    const skill = folder({
      arguments: [{ name: "file", required: false }],
      argumentsDeclared: true,
      frontmatter: { name: "pdf", description: "PDFs", arguments: ["file"] },
    });
    expect(toYaml(skill, { template: "Open $file, not $other.", examples: [] }).files[0]!.text).toContain(
      "prompt: |-\n  Open {{file}}, not $other.\n",
    );
  });
});
