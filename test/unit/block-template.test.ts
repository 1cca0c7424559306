import { describe, expect, test } from "bun:test";
import { compileBlocks } from "../../src/invoke/block-template.ts";
import type { PlainRenderer } from "../../src/invoke/plain-template.ts";
import { LIMITS } from "../../src/invoke/limits.ts";
import { renderTemplate } from "../../src/invoke/template-cache.ts";
import { COMPILE_OPTIONS, handlebars } from "../../src/skill/handlebars-env.ts";
import { mulberry32 } from "../helpers/random.ts";

const viaHandlebars = (template: string): PlainRenderer => handlebars().compile(template, COMPILE_OPTIONS);
const blocks = (template: string) => compileBlocks(template, () => viaHandlebars(template));

/** Arguments arrive without a prototype (ownArguments); Handlebars gets them through renderTemplate's copy. */
function args(data: Record<string, unknown>): Record<string, unknown> {
  return Object.assign(Object.create(null) as Record<string, unknown>, data);
}

function same(template: string, data: Record<string, unknown>): void {
  const renderer = blocks(template);
  expect({ template, compiled: renderer !== undefined }).toEqual({ template, compiled: true });
  expect({ template, data, text: renderer!(args(data)) }).toEqual({
    template,
    data,
    text: viaHandlebars(template)(data),
  });
}

describe("which templates the block renderer takes", () => {
  test("text, placeholders and if/unless/each blocks with else, this and @data inside each", () => {
    for (const t of [
      "{{#if a}}x{{/if}}",
      "{{#unless a}}x{{else}}y{{/unless}}",
      "{{#each xs}}{{this}} {{@index}} {{@key}} {{@first}} {{@last}}{{else}}none{{/each}}",
      "{{#each xs}}{{#if this}}{{name}}{{/if}}{{/each}}",
      "plain {{a}}",
    ]) {
      expect(blocks(t)).toBeDefined();
    }
  });

  test("anything else goes to Handlebars", () => {
    for (const t of [
      "{{#with a}}{{b}}{{/with}}",
      "{{this}}",
      "{{#if a}}{{this}}{{/if}}",
      "{{@index}}",
      "{{#each xs}}{{../a}}{{/each}}",
      "{{#each xs}}{{this.a}}{{/each}}",
      "{{#if a}}x{{else if b}}y{{/if}}",
      "{{#if a}}x{{else}}y{{else}}z{{/if}}",
      "{{#if a}}x{{/unless}}",
      "{{#if a}}unclosed",
      "{{/if}}",
      "{{else}}",
      "{{#if a includeZero=true}}x{{/if}}",
      "{{~#if a}}x{{/if}}",
      "{{!-- note --}}{{#if a}}x{{/if}}",
      "{{{raw}}}",
      "\\{{escaped}}",
      "{{> partial}}",
      "{{helper arg}}",
      "{{#if this}}x{{/if}}",
    ]) {
      expect({ t, taken: blocks(t) !== undefined }).toEqual({ t, taken: false });
    }
  });
});

describe("the block renderer renders exactly what Handlebars renders", () => {
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
    ["{{#each xs}}{{length}}{{/each}}", { xs: ["abc", [1, 2]] }],
    ["Items:\n{{#each items}}\n  - {{this}}\n{{/each}}\nDone\n", { items: [1, 2] }],
    ["{{#if a}}\nA\n{{else}}\nB\n{{/if}}\n", { a: false }],
    ["  {{#if a}}  \r\nA\r\n  {{/if}}  \r\nafter", { a: true }],
    ["{{#if a}}{{/if}}\n{{#each e}}{{/each}}", { a: true, e: [1] }],
    ["x {{#if a}}\ninline open\n{{/if}} y", { a: 1 }],
    ["{{#each xs}}\n{{#if this}}\n{{this}}\n{{else}}\n-\n{{/if}}\n{{/each}}", { xs: [1, 0, "", "z"] }],
    // A program that starts with two numbers or booleans adds them, as Handlebars' `return a + b` does.
    [
      "{{#each xs}}{{@index}}{{@first}}|{{/each}}{{#if n}}{{n}}{{n}}{{/if}}{{#each e}}{{else}}{{n}}{{/each}}",
      { xs: ["a", "b"], n: 2, e: [] },
    ],
    ["{{#if n}}{{n}}{{/if}}{{n}}", { n: 4 }],
  ];
  for (const [template, data] of cases) {
    test(JSON.stringify(template), () => same(template, data));
  }

  // CPU-heavy (~5 s on an idle 2-core machine): its own timeout, with room for a busy machine.
  test("on 3,000 generated templates and data sets", () => {
    const random = mulberry32(11);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
    const names = ["a", "b", "xs", "length", "constructor", "x-y"];
    const texts = ["", " ", "text", "\n", "\n  ", "  \n", "- ", "\r\n", "\n\n", " \t"];
    const template = (depth: number, insideEach: boolean): string => {
      const parts: string[] = [];
      for (let i = 0, n = 1 + Math.floor(random() * 4); i < n; i++) {
        parts.push(pick(texts));
        const r = random();
        if (depth > 0 && r < 0.35) {
          const helper = pick(["if", "unless", "each", "each"] as const);
          const inner = helper === "each" || insideEach;
          const open = `{{#${helper} ${pick(names)}}}`;
          const body = pick(["", "\n", " "]) + template(depth - 1, inner) + pick(["", "\n"]);
          const otherwise =
            random() < 0.4 ? `{{else}}${pick(texts)}${template(depth - 1, insideEach)}${pick(texts)}` : "";
          parts.push(`${open}${body}${otherwise}{{/${helper}}}`);
        } else if (insideEach && r < 0.55) {
          parts.push(pick(["{{this}}", "{{@index}}", "{{@key}}", "{{@first}}", "{{@last}}", "{{ this }}"]));
        } else {
          parts.push(`{{${Array.from({ length: 1 + Math.floor(random() * 2) }, () => pick(names)).join(".")}}}`);
        }
        parts.push(pick(texts));
      }
      return parts.join("");
    };
    const values: unknown[] = [
      "t",
      "",
      0,
      2,
      true,
      false,
      null,
      undefined,
      [],
      ["p", "q"],
      [0, "", null],
      {},
      { a: "v" },
      { xs: [1] },
      "abc",
    ];
    const value = (depth: number): unknown => {
      if (depth > 0 && random() < 0.3) return Array.from({ length: Math.floor(random() * 3) }, () => value(depth - 1));
      if (depth > 0 && random() < 0.2) return Object.fromEntries(names.slice(0, 3).map((n) => [n, value(depth - 1)]));
      return pick(values);
    };
    let taken = 0;
    for (let i = 0; i < 3000; i++) {
      const text = template(3, false);
      const renderer = blocks(text);
      if (!renderer) continue;
      taken++;
      const data = Object.fromEntries(names.map((n) => [n, value(3)]));
      expect({ text, data, out: renderer(args(data)) }).toEqual({ text, data, out: viaHandlebars(text)(data) });
    }
    // Most generated templates are within what the renderer takes (the rest: `{{this}}` outside each, …).
    expect(taken).toBeGreaterThan(2000);
  }, 120_000);

  test("data with a function in it is rendered by Handlebars (which calls it)", () => {
    const data = { xs: [1, 2], f: () => "called" };
    expect(blocks("{{#each xs}}{{this}}{{/each}} {{f}}")!(data)).toBe(
      viaHandlebars("{{#each xs}}{{this}}{{/each}} {{f}}")(data),
    );
    expect(blocks("{{#if f}}yes{{/if}}")!(data)).toBe("yes");
  });

  test("the limits hold: block bodies per render, and the result's size", () => {
    const xs = Array.from({ length: 600 }, (_, i) => i);
    const nested = blocks("{{#each xs}}{{#each ../xs}}{{/each}}{{/each}}");
    expect(nested).toBeUndefined();
    const square = blocks("{{#each xs}}{{#each ys}}.{{/each}}{{/each}}")!;
    const rows = Array.from({ length: 600 }, () => ({ ys: xs }));
    expect(() => square(args({ xs: rows }))).toThrow(`more than ${LIMITS.renderBlocks} block bodies`);
    const big = "x".repeat(1024 * 1024);
    const repeat = blocks("{{#each xs}}{{big}}{{/each}}")!;
    expect(() => repeat(args({ xs: Array.from({ length: 20 }, () => ({ big })) }))).toThrow(
      "The result would be over the 16 MiB limit",
    );
  });

  test("the template cache uses it: a tool's template with blocks renders without Handlebars", () => {
    const content = { template: "{{#each xs}}- {{this}}\n{{/each}}\n", examples: [] };
    expect(renderTemplate(content, args({ xs: ["a", "b"] }))).toBe("- a\n- b");
  });
});
