/**
 * Skill bodies as documents: CommonMark through markdown-it, code blocks highlighted by
 * highlight.js (its core and the languages skills are written with). markdown-it is used with
 * `html: false`, so raw HTML in a body is shown as text, never parsed: a <script> or an `onerror`
 * in someone's SKILL.md cannot run on this page. Its link check refuses `javascript:` and `data:`
 * URLs as well, and the page's Content-Security-Policy is a second wall.
 */
import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import diff from "highlight.js/lib/languages/diff";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import markdownLanguage from "highlight.js/lib/languages/markdown";
import python from "highlight.js/lib/languages/python";
import sql from "highlight.js/lib/languages/sql";
import typescript from "highlight.js/lib/languages/typescript";
import yaml from "highlight.js/lib/languages/yaml";
import MarkdownIt from "markdown-it";

for (const [name, language] of Object.entries({
  bash,
  diff,
  javascript,
  json,
  markdown: markdownLanguage,
  python,
  sql,
  typescript,
  yaml,
}))
  hljs.registerLanguage(name, language);
hljs.registerAliases(["sh", "shell", "console"], { languageName: "bash" });
hljs.registerAliases(["js"], { languageName: "javascript" });
hljs.registerAliases(["ts"], { languageName: "typescript" });
hljs.registerAliases(["yml"], { languageName: "yaml" });
hljs.registerAliases(["md"], { languageName: "markdown" });
hljs.registerAliases(["py"], { languageName: "python" });

const markdown = new MarkdownIt("commonmark", {
  html: false,
  highlight(code, language) {
    // A language highlight.js does not know is shown plain (markdown-it escapes it).
    if (language === "" || hljs.getLanguage(language) === undefined) return "";
    return hljs.highlight(code, { language, ignoreIllegals: true }).value;
  },
});

/** The body as HTML that holds no markup of the author's own: only what CommonMark makes. */
export function renderMarkdown(text: string): string {
  return markdown.render(text);
}

/** A Handlebars mustache: `{{name}}`, `{{{name}}}`, `{{#if x}}`, `{{else}}`, `{{/if}}`, `{{! note}}`. */
const MUSTACHE = /\{\{(\{?)~?\s*([#/^!]?)\s*([\s\S]*?)\s*~?\}?\}\}/g;
/** Private-use characters mark where a mustache stood: CommonMark passes them through as text. */
const MARK = /\uE000(\d+)\uE001/g;
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** What a reader sees for one mustache: an argument as a field, a block as words, a comment as nothing. */
function mustacheHtml(sigil: string, inner: string): string {
  const [helper = "", ...rest] = inner.split(/\s+/);
  const subject = escapeHtml(rest.join(" "));
  const block = (words: string) => `<span class="arg-block">${words}</span>`;
  if (sigil === "!") return "";
  if (sigil === "/") return block("end");
  if (sigil === "#" || sigil === "^") {
    if (helper === "if") return block(`if <span class="arg">${subject}</span> is given:`);
    if (helper === "unless") return block(`unless <span class="arg">${subject}</span> is given:`);
    if (helper === "each") return block(`for each of <span class="arg">${subject}</span>:`);
    if (helper === "with") return block(`with <span class="arg">${subject}</span>:`);
    return block(`${escapeHtml(helper)} ${subject}:`);
  }
  if (inner === "else") return block("otherwise:");
  return `<span class="arg" title="argument ${escapeHtml(inner)}">${escapeHtml(inner)}</span>`;
}

/**
 * A YAML prompt's template as a document: its Markdown rendered, each argument shown as a named
 * field and each block (`{{#if audience}}`) in words, never as Handlebars source. The mustaches
 * are set aside before CommonMark runs (so none of their text is parsed as markup) and put back as
 * markup of this page's own, their text escaped.
 */
export function renderTemplate(text: string): string {
  const parts: string[] = [];
  const marked = text.replace(MUSTACHE, (_all, _triple: string, sigil: string, inner: string) => {
    parts.push(mustacheHtml(sigil, inner.trim()));
    return `\uE000${parts.length - 1}\uE001`;
  });
  return markdown.render(marked).replace(MARK, (_all, index: string) => parts[Number(index)] ?? "");
}
