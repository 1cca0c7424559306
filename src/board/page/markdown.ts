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
