import { describe, expect, test } from "bun:test";
import { parse as parseYaml } from "yaml";
import { splitFrontmatter } from "../../src/skill/skill-md/frontmatter.ts";
import { synthesiseSkillMd, yamlQuoted } from "../../src/skill/skill-md/synthesise.ts";
import type { Skill } from "../../src/skill/skill.ts";

const skill = (extra: Partial<Skill> = {}): Skill => ({
  id: "review-pr",
  description: "Review pull requests against team conventions",
  type: "prompt",
  tags: [],
  arguments: [],
  argumentsDeclared: false,
  exampleCount: 0,
  ...extra,
});

/** Strings a YAML writer gets wrong when it does not quote: types, indicators, escapes, invisible characters. */
const AWKWARD = [
  "",
  "null",
  "~",
  "true",
  "No",
  "123",
  "0x1F",
  "1e3",
  ".inf",
  "a: b",
  "key:value",
  "# not a comment",
  "trailing #hash",
  "'single'",
  '"double"',
  "back\\slash",
  "line\nbreak",
  "cr\r\nlf",
  "\ttab",
  "  leading and trailing  ",
  "- a list item",
  "[flow]",
  "{map: 1}",
  "&anchor",
  "*alias",
  "!tag",
  "%directive",
  "@at",
  "`tick`",
  "| block",
  "> folded",
  "---",
  "...",
  "\u0000\u0001\u001f",
  "\u007f\u0085\u009f",
  "\u2028\u2029",
  "\ufeffbom",
  "\ufffe\uffff",
  "émoji 🎉 中文",
];

describe("yamlQuoted", () => {
  test("every awkward string reads back exactly, with the yaml package and with Bun's YAML", () => {
    for (const text of AWKWARD) {
      const line = `value: ${yamlQuoted(text)}`;
      expect({ text, parsed: (parseYaml(line) as { value: unknown }).value }).toEqual({ text, parsed: text });
      expect({ text, parsed: (Bun.YAML.parse(line) as { value: unknown }).value }).toEqual({ text, parsed: text });
    }
  });

  test("one line, and nothing YAML does not print raw", () => {
    for (const text of AWKWARD) {
      const quoted = yamlQuoted(text);
      expect(quoted).not.toContain("\n");
      expect(quoted).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]/);
    }
  });
});

describe("synthesiseSkillMd", () => {
  test("frontmatter: name, description, then metadata with tags, version, title and layer; the template as written is the body", () => {
    const template = "Review {{file}}.\n{{#if focus}}Focus: {{focus}}{{/if}}\n";
    const made = synthesiseSkillMd(
      skill({ tags: ["review", "code-quality"], version: "1.0.0", title: "Pull Request Review" }),
      template,
      "team",
    );
    expect(made.text).toBe(
      '---\nname: "review-pr"\ndescription: "Review pull requests against team conventions"\nmetadata:\n  tags: "review code-quality"\n  version: "1.0.0"\n  title: "Pull Request Review"\n  layer: "team"\n---\n' +
        template,
    );
    expect(made.frontmatter).toEqual({
      name: "review-pr",
      description: "Review pull requests against team conventions",
      metadata: { tags: "review code-quality", version: "1.0.0", title: "Pull Request Review", layer: "team" },
    });
    expect(Object.keys(made.frontmatter.metadata)).toEqual(["tags", "version", "title", "layer"]);
  });

  test("what a skill does not have is left out; the layer is always there; no template is an empty body", () => {
    const made = synthesiseSkillMd(skill(), undefined, "builtin");
    expect(made.text).toBe(
      '---\nname: "review-pr"\ndescription: "Review pull requests against team conventions"\nmetadata:\n  layer: "builtin"\n---\n',
    );
    expect(made.frontmatter).toEqual({
      name: "review-pr",
      description: "Review pull requests against team conventions",
      metadata: { layer: "builtin" },
    });
  });

  test("the file's frontmatter reads as the frontmatter it is published with, whatever the description holds", () => {
    for (const description of AWKWARD.filter((d) => d !== "")) {
      const made = synthesiseSkillMd(
        skill({ id: "123", description, title: description, tags: ["a", "b"] }),
        "Body: {{x}}",
        "project",
      );
      const split = splitFrontmatter(made.text);
      if (!split.ok) throw new Error(split.message);
      expect(parseYaml(split.yaml)).toEqual(made.frontmatter);
      expect(split.body).toBe("Body: {{x}}");
      // The Agent Skills format wants metadata values to be text.
      expect(Object.values(made.frontmatter.metadata).every((v) => typeof v === "string")).toBe(true);
    }
  });

  test("deterministic: the same skill, template and layer give the same bytes; any of them changing changes them", () => {
    const base = synthesiseSkillMd(skill({ tags: ["a"] }), "T", "team").text;
    expect(synthesiseSkillMd(skill({ tags: ["a"] }), "T", "team").text).toBe(base);
    for (const other of [
      synthesiseSkillMd(skill({ tags: ["a"] }), "T2", "team"),
      synthesiseSkillMd(skill({ tags: ["a"] }), "T", "project"),
      synthesiseSkillMd(skill({ tags: ["b"] }), "T", "team"),
      synthesiseSkillMd(skill({ tags: ["a"], version: "2" }), "T", "team"),
      synthesiseSkillMd(skill({ tags: ["a"], description: "Other" }), "T", "team"),
    ]) {
      expect(other.text).not.toBe(base);
    }
  });
});
