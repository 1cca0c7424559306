import { describe, expect, test } from "bun:test";
import { LIMITS, ownArguments } from "../../src/invoke/limits.ts";
import { renderTemplate } from "../../src/invoke/template-cache.ts";
import type { SkillContent } from "../../src/skill/skill.ts";
import { COMPILE_OPTIONS, handlebars } from "../../src/skill/handlebars-env.ts";
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

/*
 * Templates with blocks render through Handlebars (a hand-written renderer for the built-in
 * blocks once took them and was compared with Handlebars; these cases come from that test).
 */
describe("templates with the built-in blocks render what Handlebars renders, within the limits", () => {
  const cases: [string, Record<string, unknown>][] = [
    [
      "## Run\n\n- ticket: {{ticket}}\n{{#if dryRun}}- dryRun: {{dryRun}}{{/if}}\n- targets:{{#each targets}} {{this}}{{/each}}",
      { ticket: "abc-1", dryRun: true, targets: ["a", "b"] },
    ],
    ["{{#if a}}yes{{else}}no{{/if}}", { a: 0 }],
    ["{{#if a}}yes{{else}}no{{/if}}", { a: [] }],
    ["{{#if a}}yes{{else}}no{{/if}}", { a: {} }],
    ["{{#if a}}yes{{else}}no{{/if}}", { a: "0" }],
    ["{{#unless a}}yes{{else}}no{{/unless}}", { a: "" }],
    [
      "{{#each xs}}[{{@index}}/{{@key}} {{@first}} {{@last}} {{this}}]{{else}}empty{{/each}}",
      { xs: { b: 1, a: [2, 3], c: null } },
    ],
    ["{{#each xs}}{{this}}{{else}}empty{{/each}}", { xs: "a string" }],
    [
      "{{#each xs}}{{name}}: {{#each tags}}{{this}},{{/each}}\n{{/each}}",
      { xs: [{ name: "n1", tags: ["x", "y"] }, { name: "n2" }, null, "s"] },
    ],
    ["Items:\n{{#each items}}\n  - {{this}}\n{{/each}}\nDone\n", { items: [1, 2] }],
    ["{{#if a}}\nA\n{{else}}\nB\n{{/if}}\n", { a: false }],
    ["  {{#if a}}  \r\nA\r\n  {{/if}}  \r\nafter", { a: true }],
    ["x {{#if a}}\ninline open\n{{/if}} y", { a: 1 }],
    ["{{#each xs}}\n{{#if this}}\n{{this}}\n{{else}}\n-\n{{/if}}\n{{/each}}", { xs: [1, 0, "", "z"] }],
    [
      "{{#each xs}}{{@index}}{{@first}}|{{/each}}{{#if n}}{{n}}{{n}}{{/if}}{{#each e}}{{else}}{{n}}{{/each}}",
      { xs: ["a", "b"], n: 2, e: [] },
    ],
  ];
  for (const [template, data] of cases) {
    test(JSON.stringify(template), () => {
      expect(render(template, data)).toBe(handlebars().compile(template, COMPILE_OPTIONS)(data).trimEnd());
    });
  }

  test("block bodies per render, and the result's size, stay bounded", () => {
    const xs = Array.from({ length: 600 }, (_, i) => i);
    const rows = Array.from({ length: 600 }, () => ({ ys: xs }));
    expect(() => render("{{#each xs}}{{#each ys}}.{{/each}}{{/each}}", { xs: rows })).toThrow(
      `more than ${LIMITS.renderBlocks} block bodies`,
    );
    const big = "x".repeat(1024 * 1024);
    expect(() => render("{{#each xs}}{{big}}{{/each}}", { xs: Array.from({ length: 20 }, () => ({ big })) })).toThrow(
      "The result would be over the 16 MiB limit",
    );
  });
});
