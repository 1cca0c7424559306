import { describe, expect, test } from "bun:test";
import { COMPILE_OPTIONS, handlebars } from "../../src/skill/handlebars-env.ts";
import { compilePlain, type PlainRenderer } from "../../src/invoke/plain-template.ts";
import { renderTemplate } from "../../src/invoke/template-cache.ts";
import { mulberry32 } from "../helpers/random.ts";

const viaHandlebars = (template: string): PlainRenderer => handlebars().compile(template, COMPILE_OPTIONS);
const plain = (template: string) => compilePlain(template, () => viaHandlebars(template));

describe("which templates are plain", () => {
  test("text and plain placeholders (with or without inner spaces, with dotted paths) are plain", () => {
    for (const t of ["no tags at all", "Hi {{name}}", "{{ a }} and {{b.c.d}}", "a-b: {{my-arg}} {{$x}} {{_y}}"])
      expect(plain(t)).toBeDefined();
  });

  test("anything else goes to Handlebars", () => {
    for (const t of [
      "{{#if a}}x{{/if}}",
      "{{this}}",
      "{{this.a}}",
      "{{@index}}",
      "{{!-- note --}}",
      "{{{raw}}}",
      "\\{{escaped}}",
      "{{~a~}}",
      "{{a.this}}",
      "{{else}}",
      "{{helper arg}}",
      "{{> partial}}",
      "unclosed {{a",
      'JSON {"k": {{v}}}',
    ]) {
      expect(plain(t)).toBeUndefined();
    }
  });
});

describe("the plain renderer renders exactly what Handlebars renders", () => {
  const cases: [string, Record<string, unknown>][] = [
    ["Hello {{name}}!", { name: "Ada" }],
    ["{{missing}}|{{a.b.c}}|{{n}}|{{z}}|{{f}}|{{t}}", { n: 0, z: null, f: false, t: true, a: { b: null } }],
    ["{{list}} / {{obj}} / {{num}}", { list: ["a", "b", 3], obj: { x: 1 }, num: 2.5 }],
    ["{{s.length}} {{arr.length}} {{o.toString}} {{o.constructor}} {{__proto__}}", { s: "abcd", arr: [1, 2], o: {} }],
    ["{{a.b}}", { a: "string" }],
    ["{{x}}", { x: "{{y}} stays text" }],
    ["<b>{{html}}</b> &amp;", { html: "<i>&</i>" }],
    ["line\n  {{a}}\n\n{{ b }}  ", { a: 1, b: "two" }],
    // Handlebars' compiled code is `return a + b + …` with no leading "": numbers and booleans first add up.
    ["{{a}}{{b}} {{a}}{{b}}", { a: 1, b: true }],
    ["{{n}}{{m}}{{s}}{{n}}", { n: 2, m: 3, s: "x" }],
    ["{{n}}{{list}}", { n: 1, list: [2, 3] }],
  ];
  for (const [template, data] of cases) {
    test(JSON.stringify(template), () => {
      expect(plain(template)).toBeDefined();
      expect(plain(template)!(data)).toBe(viaHandlebars(template)(data));
    });
  }

  // CPU-heavy (~1 s on an idle 2-core machine): its own timeout, with room for a busy machine.
  test("on 2,000 generated templates and data sets", () => {
    const random = mulberry32(7);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
    const names = ["a", "b", "c", "length", "constructor", "toString", "__proto__", "valueOf", "x-y"];
    const values: unknown[] = [
      "text",
      "",
      0,
      1.5,
      -2,
      true,
      false,
      null,
      undefined,
      [1, "two"],
      [],
      { a: "nested" },
      { b: { c: 3 } },
      "{{a}}",
    ];
    const randomValue = (depth: number): unknown =>
      depth > 0 && random() < 0.3
        ? Object.fromEntries(names.slice(0, 3).map((n) => [n, randomValue(depth - 1)]))
        : pick(values);
    for (let i = 0; i < 2000; i++) {
      const parts: string[] = [];
      for (let j = 0, n = 1 + Math.floor(random() * 5); j < n; j++) {
        const path = Array.from({ length: 1 + Math.floor(random() * 3) }, () => pick(names)).join(".");
        parts.push(pick(["", " ", "text ", "\n", "- "]), random() < 0.5 ? `{{${path}}}` : `{{ ${path} }}`);
      }
      const template = parts.join("");
      const data = Object.fromEntries(names.map((n) => [n, randomValue(2)]));
      const renderer = plain(template);
      expect(renderer).toBeDefined();
      expect(renderer!(data)).toBe(viaHandlebars(template)(data));
    }
  }, 60_000);

  test("data with a function in it is rendered by Handlebars (which calls it)", () => {
    const data = { greet: () => "hi" };
    expect(plain("{{greet}}!")!(data)).toBe(viaHandlebars("{{greet}}!")(data));
  });

  test("the template cache renders plain and block templates alike, trimming the end", () => {
    expect(renderTemplate({ template: "plain {{a}}\n\n", examples: [] }, { a: 1 })).toBe("plain 1");
    expect(renderTemplate({ template: "{{#if a}}yes{{/if}}\n", examples: [] }, { a: 1 })).toBe("yes");
  });

  test("renderers are kept per file version: a content object that is let go takes its renderer with it", () => {
    const content = { template: "{{#each xs}}{{this}}{{/each}}", examples: [] };
    expect(renderTemplate(content, { xs: [1, 2] })).toBe("12");
    // The same text in another version (a reload) is compiled for that version, not shared forever.
    expect(renderTemplate({ ...content }, { xs: [3] })).toBe("3");
  });
});
