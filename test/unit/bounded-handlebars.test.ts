import { describe, expect, test } from "bun:test";
import { LIMITS, ownArguments } from "../../src/invoke/limits.ts";
import { renderTemplate } from "../../src/invoke/template-cache.ts";
import type { SkillContent } from "../../src/skill/skill.ts";

const render = (template: string, args: Record<string, unknown>): string =>
  renderTemplate({ template, examples: [] } satisfies SkillContent, ownArguments(args));
const refusal = (template: string, args: Record<string, unknown>): string => {
  try {
    render(template, args);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error("expected the render to be refused");
};

describe("Handlebars templates render within the limits on work and size", () => {
  const squared = "{{#each a}}{{#each ../a}}x{{/each}}{{/each}}";
  const fourDeep =
    "{{#each a}}{{#each ../a}}{{#each ../../a}}{{#each ../../../a}}x{{/each}}{{/each}}{{/each}}{{/each}}";
  const list = (n: number) => Array.from({ length: n }, (_, i) => `item ${i}`);
  const limitMessage = `The template renders more than ${LIMITS.renderBlocks} block bodies for these arguments (the limit): {{#each}} inside {{#each}} multiplies them; pass fewer items`;

  test("#each inside #each over one list: fine while small, refused (not minutes of work) once the bodies pass the limit", () => {
    expect(render(squared, { a: list(3) })).toBe("x".repeat(9));
    expect(render(squared, { a: list(400) })).toHaveLength(160_000);
    expect(refusal(squared, { a: list(600) })).toBe(limitMessage);
    // Four deep over 100 items was 10^8 bodies: tens of seconds with nothing answered.
    expect(refusal(fourDeep, { a: list(100) })).toBe(limitMessage);
  });

  test("a section over a list is an #each too", () => {
    const section = "{{#a}}{{#../a}}{{#../../a}}{{#../../../a}}x{{/../../../a}}{{/../../a}}{{/../a}}{{/a}}";
    expect(() => render(section, { a: Array.from({ length: 100 }, (_, i) => i) })).toThrow();
    expect(render("{{#a}}[{{this}}]{{/a}}", { a: [1, 2] })).toBe("[1][2]");
  });

  test("one #each over a long list is fine up to the limit", () => {
    const a = Array.from({ length: LIMITS.renderBlocks }, () => 0);
    expect(render("{{#each a}}{{this}}{{/each}}", { a })).toHaveLength(LIMITS.renderBlocks);
    expect(refusal("{{#each a}}{{this}}{{/each}}", { a: [...a, 0] })).toContain("block bodies");
  });

  test("an #each whose output passes the result limit stops there", () => {
    const big = "y".repeat(1024 * 1024);
    expect(refusal("{{#each a}}{{../big}}{{/each}}", { a: Array.from({ length: 20 }, () => 0), big })).toMatch(
      /^The result would be over the 16 MiB limit \(\d+ characters so far\)/,
    );
  });

  test("text too long for the engine (a large value repeated) is the result limit, not an internal error", () => {
    const big = "z".repeat(8 * 1024 * 1024 - 100);
    // The comment keeps the template with Handlebars (block-template.ts takes the rest, and counts as it joins).
    expect(refusal(`{{!-- via Handlebars --}}{{#if b}}${"{{b}}".repeat(300)}{{/if}}`, { b: big })).toBe(
      "The result would be over the 16 MiB limit; pass smaller arguments",
    );
    expect(refusal(`{{#if b}}${"{{b}}".repeat(300)}{{/if}}`, { b: big })).toMatch(
      /^The result would be over the 16 MiB limit \(\d+ characters so far\); pass smaller arguments$/,
    );
  });

  test("the count starts again for every render", () => {
    const a = Array.from({ length: LIMITS.renderBlocks / 2 }, () => 0);
    for (let i = 0; i < 3; i++) expect(render("{{#each a}}.{{/each}}", { a })).toHaveLength(LIMITS.renderBlocks / 2);
  });
});
