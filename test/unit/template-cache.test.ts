import { describe, expect, test } from "bun:test";
import { ownArguments } from "../../src/invoke/limits.ts";
import { renderTemplate } from "../../src/invoke/template-cache.ts";
import type { SkillContent } from "../../src/skill/skill.ts";
import { proveTemplate } from "../../src/skill/template-proof.ts";

/** Renders as a call does: arguments copied without a prototype (`ownArguments`). */
function render(template: string, args: Record<string, unknown>): string {
  expect(proveTemplate(template).ok).toBe(true);
  const content: SkillContent = { template, examples: [] };
  return renderTemplate(content, ownArguments(args));
}

describe("Handlebars templates over arguments without a prototype (found by the fuzzer: each failed with -32603 'No default value')", () => {
  test("{{../name}} inside #each over plain values", () => {
    expect(render("{{#each items}}{{../prefix}}{{this}};{{/each}}", { items: ["a", "b"], prefix: "-" })).toBe("-a;-b;");
    expect(render("{{#each a}}{{#each ../a}}x{{/each}}{{/each}}", { a: [1, 2] })).toBe("xxxx");
  });

  test("{{this}} and {{.}} at the top print as Handlebars prints any object", () => {
    expect(render("{{this}}|{{.}}", { a: 1 })).toBe("[object Object]|[object Object]");
  });

  test("names of Object.prototype still find nothing unless sent, and __proto__ is a plain name", () => {
    expect(
      render("[{{toString}}][{{constructor}}][{{#if hasOwnProperty}}bad{{/if}}]{{#each this}}{{@key}},{{/each}}", {
        a: 1,
      }),
    ).toBe("[][][]a,");
    expect(render("{{toString}}", { toString: "sent" })).toBe("sent");
    expect(render("{{__proto__.x}}", JSON.parse('{"__proto__": {"x": "own"}}') as Record<string, unknown>)).toBe("own");
  });
});

describe("helperMissing and blockHelperMissing are plain names (found by the fuzzer: every render threw)", () => {
  test("as a section, an inverse section, a bracketed name or a mustache: rendered as any other name would be", () => {
    const args = { helperMissing: "H" };
    expect(render("{{#helperMissing}}x{{/helperMissing}}", args)).toBe("x");
    expect(render("{{^blockHelperMissing}}empty{{/blockHelperMissing}}", args)).toBe(
      render("{{^other}}empty{{/other}}", args),
    );
    expect(render("{{^blockHelperMissing}}empty{{/blockHelperMissing}}", args)).toBe("empty");
    expect(render("{{[helperMissing]}} {{helperMissing}}", args)).toBe("H H");
    expect(render("{{#helperMissing}}x{{/helperMissing}}", {})).toBe("");
  });
});
