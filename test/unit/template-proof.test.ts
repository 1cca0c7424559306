import { describe, expect, test } from "bun:test";
import { COMPILE_OPTIONS, handlebars } from "../../src/skill/handlebars-env.ts";
import { proveTemplate, type TemplateProof } from "../../src/skill/template-proof.ts";
import { mulberry32 } from "../helpers/random.ts";

/**
 * A Handlebars comment is invisible to rendering and to the variable list, but it is not a
 * "simple" tag, so appending one sends any template through the real parser instead of the
 * fast path. Comparing the two proofs compares the two implementations.
 */
const FORCE_PARSER = "{{!-- force the parser --}}";
const viaParser = (template: string): TemplateProof => proveTemplate(template + FORCE_PARSER);

function variables(template: string): string[] {
  const proof = proveTemplate(template);
  if (!proof.ok) throw new Error(`expected ${JSON.stringify(template)} to be proven, got: ${proof.message}`);
  return [...proof.variables].sort();
}

function rejection(template: string): { message: string; hint?: string; position?: { line: number; column: number } } {
  const proof = proveTemplate(template);
  if (proof.ok) throw new Error(`expected ${JSON.stringify(template)} to be rejected`);
  return proof;
}

/** How many times `fn` makes the shared Handlebars environment parse a template. */
function parserCalls(fn: () => void): number {
  const original = handlebars().parse;
  let calls = 0;
  handlebars().parse = ((...args: Parameters<typeof original>) => {
    calls++;
    return original.apply(handlebars(), args);
  }) as typeof original;
  try {
    fn();
  } finally {
    handlebars().parse = original;
  }
  return calls;
}

function compilesAndRenders(template: string, data: Record<string, unknown> = {}): boolean {
  try {
    handlebars().compile(template, COMPILE_OPTIONS)(data);
    return true;
  } catch {
    return false;
  }
}

describe("templates that are proven", () => {
  test("plain text and the empty template read no variables", () => {
    expect(proveTemplate("Review the diff carefully.\nThen summarise.")).toEqual({ ok: true, variables: [] });
    expect(proveTemplate("")).toEqual({ ok: true, variables: [] });
  });

  test("simple mustaches list each top-level name once", () => {
    expect(variables("Hello {{name}}, {{ name }} again")).toEqual(["name"]);
    expect(variables("{{a}} {{b}}\n{{c}}")).toEqual(["a", "b", "c"]);
  });

  test("a dotted path lists only its first segment", () => {
    expect(variables("{{user.name}} {{user.email}} {{repo.owner.login}}")).toEqual(["repo", "user"]);
  });

  test("names with dashes, underscores and dollars are variables", () => {
    expect(variables("{{pr-number}} {{_private}} {{$x}}")).toEqual(["$x", "_private", "pr-number"]);
  });

  test("#if, #unless, #each and #with blocks are proven, with their arguments as variables", () => {
    expect(variables("{{#if draft}}x{{/if}}")).toEqual(["draft"]);
    expect(variables("{{#unless done}}x{{else}}y{{/unless}}")).toEqual(["done"]);
    expect(variables("{{#each items}}- {{this}}\n{{/each}}")).toEqual(["items"]);
    expect(variables("{{#with user}}x{{/with}}")).toEqual(["user"]);
  });

  test("both branches of #if are read from the top-level context", () => {
    expect(variables("{{#if a}}{{b}}{{else}}{{c}}{{/if}}")).toEqual(["a", "b", "c"]);
  });

  test("else-if chains are proven and read their conditions", () => {
    expect(variables("{{#if a}}x{{else if b}}y{{else}}{{c}}{{/if}}")).toEqual(["a", "b", "c"]);
  });

  test("names inside #each and #with bodies are not top-level variables", () => {
    expect(variables("{{#each items}}{{name}} {{price.amount}}{{/each}}")).toEqual(["items"]);
    expect(variables("{{#with user}}{{name}}{{/with}}")).toEqual(["user"]);
  });

  test("../ inside a context-changing block reaches a top-level variable", () => {
    expect(variables("{{#each items}}{{name}} of {{../total}}{{/each}}")).toEqual(["items", "total"]);
    expect(variables("{{#with a}}{{../b}}{{/with}}")).toEqual(["a", "b"]);
  });

  test("../ counts nesting: only the path that climbs to the top is top-level", () => {
    expect(variables("{{#each a}}{{#each b}}{{../../top}} {{../mid}}{{/each}}{{/each}}")).toEqual(["a", "top"]);
  });

  test("#if and #unless do not change context, so names inside them are top-level", () => {
    expect(variables("{{#each a}}{{#if b}}{{c}}{{/if}}{{/each}}{{d}}")).toEqual(["a", "d"]);
    expect(variables("{{#if a}}{{#unless b}}{{c}}{{/unless}}{{/if}}")).toEqual(["a", "b", "c"]);
  });

  test("the else branch of #each and #with is read from the outer context", () => {
    expect(variables("{{#each xs}}{{x}}{{else}}{{empty}}{{/each}}")).toEqual(["empty", "xs"]);
    expect(variables("{{#with a}}{{b}}{{else}}{{c}}{{/with}}")).toEqual(["a", "c"]);
  });

  test("@data variables are not inputs, except @root paths", () => {
    expect(variables("{{#each xs}}{{@index}}: {{@key}} {{@first}}{{/each}}")).toEqual(["xs"]);
    expect(variables("{{#with a}}{{@root.config}}{{/with}}")).toEqual(["a", "config"]);
  });

  test("this and literals are not variables", () => {
    expect(variables("{{this}} {{true}} {{null}}")).toEqual([]);
    expect(variables("{{#if true}}x{{/if}}")).toEqual([]);
  });

  test("comments, whitespace control, triple-stash and escapes are proven", () => {
    expect(variables("{{! a comment }}{{!-- {{not}} --}}{{~name~}}")).toEqual(["name"]);
    expect(variables("{{{raw}}}")).toEqual(["raw"]);
    expect(variables("\\{{literal}} {{real}}")).toEqual(["real"]);
  });

  test("a parameterless block is a section reading its own name", () => {
    expect(variables("{{#section}}{{inner}}{{/section}}")).toEqual(["section"]);
    expect(variables("{{^missing}}none{{/missing}}")).toEqual(["missing"]);
  });

  test("block parameters are local names, not inputs", () => {
    expect(variables("{{#each items as |item|}}{{item.name}}{{/each}}")).toEqual(["items"]);
  });
});

describe("templates that are rejected", () => {
  test("a helper call with arguments is an unknown helper, at its position", () => {
    const r = rejection("Intro\n  see {{foo bar}}");
    expect(r.message).toBe('unknown helper "foo"');
    expect(r.hint).toContain("only #if, #unless, #each and #with exist");
    expect(r.position).toEqual({ line: 2, column: 7 });
  });

  test("the unregistered built-ins log and lookup are unknown helpers", () => {
    expect(rejection('{{log "x"}}').message).toContain('unknown helper "log"');
    expect(rejection("{{lookup a b}}").message).toContain('unknown helper "lookup"');
    expect(rejection("{{lookup a b}}").position).toEqual({ line: 1, column: 1 });
  });

  test("hash arguments make a mustache a helper call", () => {
    expect(rejection("{{greet name=user}}").message).toContain('unknown helper "greet"');
  });

  test("a sub-expression is an unknown helper, at the sub-expression", () => {
    const r = rejection("{{#if (eq a b)}}x{{/if}}");
    expect(r.message).toContain('unknown helper "eq"');
    expect(r.position).toEqual({ line: 1, column: 7 });
  });

  test("an unknown block helper is rejected", () => {
    const r = rejection("a\nb\n  {{#repeat 3}}y{{/repeat}}");
    expect(r.message).toContain('unknown helper "repeat"');
    expect(r.position).toEqual({ line: 3, column: 3 });
  });

  test("an unknown helper nested in a block body is found", () => {
    expect(rejection("{{#each a}}{{foo b}}{{/each}}").position).toEqual({ line: 1, column: 12 });
    expect(rejection("{{#if a}}{{else foo b}}{{/if}}").message).toContain('unknown helper "foo"');
  });

  test("a built-in block used as a mustache suggests the block form", () => {
    const r = rejection("{{if ready}}");
    expect(r.message).toContain('unknown helper "if"');
    expect(r.hint).toBe("write it as a block: {{#if …}}…{{/if}}");
  });

  test("partials and partial blocks are rejected at their position", () => {
    expect(rejection("{{> header}}").message).toContain("partials");
    expect(rejection("{{#> layout}}x{{/layout}}").message).toContain("partials");
    expect(rejection("{{#if a}}{{> p}}{{/if}}").position).toEqual({ line: 1, column: 10 });
  });

  test("decorators are rejected", () => {
    expect(rejection("{{*decorator}}").message).toContain("unsupported");
    expect(rejection('{{#*inline "x"}}y{{/inline}}').message).toContain("unsupported");
  });

  test("a block with no argument is rejected", () => {
    for (const name of ["if", "unless", "each", "with"]) {
      const r = rejection(`text\n{{#${name}}}x{{/${name}}}`);
      expect(r.message).toBe(`{{#${name}}} takes exactly one argument`);
      expect(r.position).toEqual({ line: 2, column: 1 });
    }
  });

  test("a block with two arguments or a hash is rejected", () => {
    expect(rejection("{{#if a b}}x{{/if}}").message).toBe("{{#if}} takes exactly one argument");
    expect(rejection("{{#with a b=1}}{{/with}}").message).toBe("{{#with}} takes exactly one argument");
  });

  test("an unclosed block is named and points at its opening tag", () => {
    const r = rejection("intro\n  {{#each items}}{{name}}");
    expect(r.message).toContain("does not parse");
    expect(r.message).toContain("{{#each}} is never closed");
    expect(r.position).toEqual({ line: 2, column: 3 });
  });

  test("with several blocks open, the innermost unclosed one is named", () => {
    const r = rejection("{{#if a}}\n{{#with b}}\n{{/with}}");
    expect(r.message).toContain("{{#if}} is never closed");
    expect(r.position).toEqual({ line: 1, column: 1 });
  });

  test("mismatched blocks are rejected at the close tag, naming where the block opened", () => {
    const r = rejection("line one\n{{#if a}}x{{/each}}");
    expect(r.message).toBe(
      "template does not parse: {{/each}} does not match {{#if}}, opened at line 2, column 1 of the template",
    );
    expect(r.hint).toBe("write {{/if}} here: blocks close in the reverse order they were opened");
    expect(r.position).toEqual({ line: 2, column: 11 });
  });

  test("a close tag with no opening block is rejected", () => {
    const r = rejection("x {{/if}}");
    expect(r.message).toBe("template does not parse: {{/if}} closes a block that is not open");
    expect(r.position).toEqual({ line: 1, column: 3 });
  });

  test("an unterminated mustache is rejected in words, at its opening braces", () => {
    const r = rejection("ok {{a}}\n{{name");
    expect(r.message).toBe("template does not parse: the tag {{name is never closed");
    expect(r.hint).toStartWith("close it with }}");
    expect(r.position).toEqual({ line: 2, column: 1 });
  });

  test("no message shows Handlebars' token names", () => {
    const broken = [
      "{{#if x}",
      "{{x}",
      "{{x",
      "{{#if x}}a{{/each}}",
      "{{/if}}",
      "{{#each a}}",
      "{{x y=}}",
      "{{{x}}",
      "{{x}}}",
      "{{#if x}}{{/if x}}",
      "a {{else}} b",
      "{{#if a}}{{else}}{{else}}{{/if}}",
      "{{x (}}",
      "{{!-- never closed",
      "{{#if x}} {{else}} {{else if y}} {{/if}}",
      '{{x "y}}',
    ];
    for (const template of broken) {
      const r = rejection(template);
      expect(`${r.message} ${r.hint}`).not.toMatch(/Expecting|'[A-Z_]{2,}'|CLOSE|OPEN_|INVALID/);
      expect(r.position).toBeDefined();
    }
  });

  test("a stray else is rejected", () => {
    expect(proveTemplate("{{else}}").ok).toBe(false);
    expect(proveTemplate("{{#each a}}{{else}}{{else}}{{/each}}").ok).toBe(false);
  });
});

// ---------------------------------------------------------------------------------------------

/** Random templates made of the constructs the fast path claims to understand. */
function simpleTemplates(count: number, seed: number): string[] {
  const rnd = mulberry32(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const names = ["name", "user", "items", "a-b", "_x", "$y", "cfg"];
  const path = () => (rnd() < 0.3 ? `${pick(names)}.${pick(["first", "b", "c-d"])}` : pick(names));
  // Text never starts with "}" or ends with "{": see the known bugs below.
  const text = () => pick(["", "Hello ", "\n", " - ", "{json: 1} ", "a { b } c", "text\n  indented "]);
  /** `inContext`: inside #each or #with, where `this` is no longer the top-level context. */
  const body = (depth: number, inContext = false): string => {
    let out = "";
    for (let i = 0, n = 1 + Math.floor(rnd() * 4); i < n; i++) {
      const roll = rnd();
      out += text();
      if (roll < 0.35) out += pick(["{{", "{{ "]) + path() + pick(["}}", " }}"]);
      // Top-level `{{this.x}}` is a known divergence (see below): only inside #each/#with here.
      else if (roll < 0.45)
        out += pick(["{{this}}", "{{@index}}", "{{@key}}", ...(inContext ? ["{{this.name}}"] : [])]);
      else if (depth < 3 && roll < 0.85) {
        const block = pick(["if", "unless", "each", "with"]);
        const inner = body(depth + 1, inContext || block === "each" || block === "with");
        const alternative = rnd() < 0.3 ? `{{else}}${body(depth + 1, inContext)}` : "";
        out += `{{#${block} ${path()}}}${inner}${alternative}{{/${block}}}`;
      }
    }
    return out;
  };
  return Array.from({ length: count }, () => body(0));
}

describe("the fast path and the parser agree", () => {
  const templates = simpleTemplates(300, 7);

  test("the generated templates are non-trivial", () => {
    expect(templates.length).toBe(300);
    expect(templates.filter((t) => t.includes("{{#each")).length).toBeGreaterThan(50);
    expect(templates.filter((t) => t.includes("{{else}}")).length).toBeGreaterThan(30);
  });

  test("templates without {{else}} take the fast path, and the forced variant the parser", () => {
    // Otherwise the agreement below would compare the parser with itself.
    const withoutElse = templates.filter((t) => !t.includes("{{else}}"));
    expect(withoutElse.length).toBeGreaterThan(100);
    const proveAll = () => {
      for (const t of withoutElse) proveTemplate(t);
    };
    const parseTen = () => {
      for (const t of withoutElse.slice(0, 10)) viaParser(t);
    };
    expect(parserCalls(proveAll)).toBe(0);
    expect(parserCalls(parseTen)).toBe(10);
  });

  test("on simple templates both paths prove the template with the same variables", () => {
    for (const template of templates) {
      const fast = proveTemplate(template);
      const slow = viaParser(template);
      const norm = (p: TemplateProof) => (p.ok ? { ok: true, variables: [...p.variables].sort() } : { ok: false });
      expect({ template, proof: norm(fast) }).toEqual({ template, proof: norm(slow) });
    }
  });

  test("every generated template that is proven compiles and renders in the real environment", () => {
    for (const template of templates) {
      expect({ template, proven: proveTemplate(template).ok }).toEqual({ template, proven: true });
      expect({ template, renders: compilesAndRenders(template, { items: [1, 2], user: { name: "u" } }) }).toEqual({
        template,
        renders: true,
      });
    }
  });

  test("a hand-picked set of simple templates agrees", () => {
    const cases = [
      "Hello {{name}}",
      "{{ name }} and {{a.b.c}}",
      "{{#if a}}{{b}}{{else}}{{c}}{{/if}}",
      "{{#each xs}}{{@index}}{{x}}{{else}}{{empty}}{{/each}}",
      "{{#with a}}{{b}}{{else}}{{c}}{{/with}}",
      "{{#if a}}{{#each b}}{{c}}{{/each}}{{d}}{{/if}}",
      "{{#each items}}{{this.name}}{{name}}{{/each}}",
      "{{#if  a }}x{{/if }}",
    ];
    for (const template of cases) {
      const fast = proveTemplate(template);
      const slow = viaParser(template);
      expect(fast.ok && slow.ok).toBe(true);
      if (fast.ok && slow.ok) expect([...fast.variables].sort()).toEqual([...slow.variables].sort());
    }
  });

  test("rejections from both paths agree that the template fails", () => {
    for (const template of ["{{#if a}}x", "{{#if a}}{{/unless}}", "{{/if}}", "{{foo bar}}", "{{#if}}{{/if}}"]) {
      expect(proveTemplate(template).ok).toBe(false);
      expect(viaParser(template).ok).toBe(false);
    }
  });
});

/**
 * Templates that look simple but that Handlebars cannot compile: the fast path must not prove
 * them (the prompt would then fail on its first render instead of at load time).
 */
describe("fast-path edge cases", () => {
  const uncompilable = [
    'Return JSON like {"key": {{value}}}', // `}}}` after a mustache
    "{{x}}}",
    "{{{raw}}", // unbalanced triple-stash
    "x {{{a}}",
    "{{a.this}}", // keyword path segments
    "{{a.true}}",
    "{{a.null}}",
  ];
  test("the repro templates really fail to compile, and the parser path rejects them", () => {
    for (const template of uncompilable) {
      expect(compilesAndRenders(template)).toBe(false);
      expect(viaParser(template).ok).toBe(false);
    }
  });
  for (const template of uncompilable) {
    test(`${JSON.stringify(template)} is not proven`, () => {
      expect(proveTemplate(template).ok).toBe(false);
    });
  }

  test("the parser path lists a top-level {{this.x}} as x", () => {
    const slow = viaParser("{{this.topic}}");
    expect(slow).toEqual({ ok: true, variables: ["topic"] });
  });
  test("the fast path proves {{else}} without the parser", () => {
    expect(parserCalls(() => proveTemplate("{{#if a}}x{{else}}y{{/if}}"))).toBe(0);
  });
  test("the fast path lists a top-level {{this.x}} as x", () => {
    expect(proveTemplate("{{this.topic}}")).toEqual({ ok: true, variables: ["topic"] });
  });
});
