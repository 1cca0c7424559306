import { describe, expect, test } from "bun:test";
import { hashOf, parseHash } from "../../src/board/page/url-state.ts";

/**
 * The page's Markdown module, loaded by a path the root type check does not follow: its
 * highlight.js types bring the DOM's library, which the server's code (Bun's types) must not see.
 * The page's own check (`tsc -p src/board/page`) types it.
 */
const PAGE_MARKDOWN = "../../src/board/page/markdown.ts";
const { renderTemplate } = (await import(PAGE_MARKDOWN)) as { renderTemplate(text: string): string };

describe("the board's view in the URL", () => {
  test("a view written and read back is the same view; defaults are left out, the ? always there", () => {
    const view = { skill: "a b/c", client: "cursor", audit: "block", query: "review k8s", allProblems: true };
    const hash = hashOf(view);
    expect(hash).toBe("#/skill/a%20b%2Fc?client=cursor&audit=block&q=review+k8s&problems=all");
    const { skill, choices } = parseHash(hash);
    expect({ skill, ...choices }).toEqual(view);
    expect(hashOf({ skill: undefined, client: "", audit: "", query: "", allProblems: false })).toBe("#/?");
  });

  test("a plain link names a skill and no choices (the page keeps its own); nonsense reads as defaults", () => {
    expect(parseHash("#/skill/hello")).toEqual({ skill: "hello" });
    expect(parseHash("#/skill/%E0%A4%A")).toEqual({ skill: undefined });
    expect(parseHash("#/?audit=everything").choices?.audit).toBe("");
  });

  test("the Evals view has its own path, with the choices as any view's; a plain link to it keeps the page's", () => {
    const view = { skill: undefined, evals: true as const, client: "cursor", audit: "", query: "", allProblems: true };
    const hash = hashOf(view);
    expect(hash).toBe("#/evals?client=cursor&problems=all");
    const { skill, evals, choices } = parseHash(hash);
    expect({ skill, evals, ...choices }).toEqual(view);
    expect(parseHash("#/evals")).toEqual({ skill: undefined, evals: true });
    expect(parseHash("#/evals/x?").evals).toBeUndefined();
  });
});

describe("a YAML prompt's template as a document", () => {
  test("arguments are fields, blocks are words, comments are gone, and nothing of the template is markup", () => {
    const html = renderTemplate(
      "# Hi\n\nHello **{{who}}**{{! a note }}\n{{#if audience}}For {{{audience}}}.{{else}}For all.{{/if}}\n{{#each items}}- {{this}}{{/each}}",
    );
    expect(html).not.toContain("{{");
    expect(html).not.toContain("note");
    expect(html).toContain('<strong><span class="arg" title="argument who">who</span></strong>');
    expect(html).toContain('<span class="arg-block">if <span class="arg">audience</span> is given:</span>');
    expect(html).toContain('<span class="arg-block">otherwise:</span>');
    expect(html).toContain('<span class="arg-block">for each of <span class="arg">items</span>:</span>');
  });

  test("a mustache's text is escaped: a hostile argument name cannot add markup", () => {
    const html = renderTemplate('{{<img src=x onerror="alert(1)">}}');
    expect(html).not.toContain("<img");
    expect(html).toContain("&#60;img");
  });
});
