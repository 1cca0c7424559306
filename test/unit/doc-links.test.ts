import { describe, expect, test } from "bun:test";
import { Glob } from "bun";
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { REPO_ROOT } from "../helpers/server.ts";

/**
 * Every link in the README and in docs/ stays inside the repository and arrives: the file exists
 * (in a clean clone, so nothing ignored or generated), and an #anchor names a heading of it.
 * A link to the web is not allowed, and neither is a bare URL in prose, which GitHub turns into one.
 * A file named in prose as this repository's (`src/…`, `test/…`, `docs/…`, `bench/…`, `script/…`)
 * exists too, and no page cites a file on the machine it was written on (`/work/…`, `/home/…`).
 */

// The README and every page under docs/, at any depth (RELEASING.md, for maintainers, links to the web).
const PAGES = ["README.md", ...[...new Glob("docs/**/*.md").scanSync({ cwd: REPO_ROOT })].sort()];

/** The text a reader sees as prose: fenced blocks and inline code removed (neither makes links). */
function prose(markdown: string): string {
  return markdown
    .replace(/^```[\s\S]*?^```/gm, (block) => block.replace(/[^\n]/g, " "))
    .replace(/`[^`\n]*`/g, (code) => " ".repeat(code.length));
}

/**
 * GitHub's anchor for a heading: of the text it shows (a link's text, not its target; no HTML tag),
 * lower case, punctuation dropped, spaces as hyphens; repeats get -1, -2. An HTML anchor
 * (`<a id="x">`, `<a name="x">`) is one too.
 */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  const text = markdown.replace(/^```[\s\S]*?^```/gm, "");
  for (const match of text.matchAll(/<a\s+(?:[^>]*\s)?(?:id|name)="([^"]+)"/g)) out.add(match[1]!);
  for (const match of text.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    // Outside code spans: a link shows its text, a tag nothing (`<id>` in a code span is text).
    const shown = match[1]!
      .split("`")
      .map((part, i) => (i % 2 === 1 ? part : part.replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1").replace(/<[^>]+>/g, "")))
      .join("`");
    const base = shown
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

function links(markdown: string): { target: string; line: number }[] {
  const text = prose(markdown);
  const found: { target: string; line: number }[] = [];
  for (const match of text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)|^\[[^\]]+\]:\s*<?(\S+?)>?\s*$/gm)) {
    found.push({ target: (match[1] ?? match[2])!, line: text.slice(0, match.index).split("\n").length });
  }
  return found;
}

function problems(page: string, markdown = readFileSync(join(REPO_ROOT, page), "utf8")): string[] {
  const file = join(REPO_ROOT, page);
  const out: string[] = [];
  for (const { target, line } of links(markdown)) {
    const where = `${page}:${line}: ${target}`;
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("//")) {
      out.push(`${where}: points outside the repository`);
      continue;
    }
    const [path = "", anchor] = target.split("#", 2);
    const resolved = path === "" ? file : resolve(dirname(file), decodeURIComponent(path));
    const inRepo = relative(REPO_ROOT, resolved);
    if (inRepo.startsWith("..")) {
      out.push(`${where}: leaves the repository`);
      continue;
    }
    if (!existsSync(resolved)) {
      out.push(`${where}: no such file`);
      continue;
    }
    if (
      anchor !== undefined &&
      resolved.endsWith(".md") &&
      statSync(resolved).isFile() &&
      !anchors(readFileSync(resolved, "utf8")).has(anchor)
    ) {
      out.push(`${where}: no heading with that anchor`);
    }
  }
  out.push(...citedFiles(page, markdown));
  // Link targets were checked above; what is left of a URL in prose is a bare one.
  const bare = prose(markdown).replace(/\]\([^)]*\)/g, (target) => " ".repeat(target.length));
  for (const match of bare.matchAll(/\b(?:https?:\/\/|www\.)\S+/g)) {
    out.push(`${page}:${bare.slice(0, match.index).split("\n").length}: a bare URL GitHub would link: ${match[0]}`);
  }
  return out;
}

/**
 * Files named in prose or code spans (not links): a path into this repository's own folders must
 * exist (one followed by "(owner/name)" is another repository's; one with a <placeholder> is a
 * pattern), and an absolute path into a home or work folder is a file nobody else has.
 */
const REPO_PATH =
  /(?<![\w./-])((?:src|test|docs|bench|script)\/[\w./<>*-]*\.[a-z]{1,5})\b(?!`?\s*\([\w.-]+\/[\w.-]+\))/g;
const MACHINE_PATH = /(?<![\w.~-])(\/(?:work|home|Users|root)\/[^\s`)\];,]*[^\s`)\];,.])/g;

function citedFiles(page: string, linked: string): string[] {
  // Link targets are checked as links; blanked (same length) so the line numbers stay.
  const markdown = linked.replace(/\]\([^)]*\)/g, (target) => " ".repeat(target.length));
  const out: string[] = [];
  const lineOf = (index: number) => markdown.slice(0, index).split("\n").length;
  for (const match of markdown.matchAll(REPO_PATH)) {
    const path = match[1]!;
    if (/[<*]/.test(path)) continue;
    if (!existsSync(join(REPO_ROOT, path)) && !existsSync(join(REPO_ROOT, dirname(page), path)))
      out.push(`${page}:${lineOf(match.index)}: ${path}: no such file in the repository`);
  }
  for (const match of markdown.matchAll(MACHINE_PATH))
    out.push(`${page}:${lineOf(match.index)}: ${match[1]}: a file on one machine, not in the repository`);
  return out;
}

describe("links in the README and docs/", () => {
  test("there are pages and links to check", () => {
    expect(PAGES.length).toBeGreaterThan(5);
    expect(links(readFileSync(join(REPO_ROOT, "README.md"), "utf8")).length).toBeGreaterThan(10);
  });

  for (const page of PAGES) {
    test(`${page}: every link resolves to a file in the repository (and its heading)`, () => {
      expect(problems(page)).toEqual([]);
    });
  }

  test("the checker catches what it must", () => {
    const anchorsOf = anchors("# A title\n## `new <id> --type prompt|tool`\n## Limits\n## Limits\n");
    expect([...anchorsOf]).toEqual(["a-title", "new-id---type-prompttool", "limits", "limits-1"]);
    expect(
      links(
        "see [a](https://example.com) and [b](docs/x.md#y)\n```\n[c](ignored.md)\n```\n`[d](also-ignored.md)`\n",
      ).map((l) => l.target),
    ).toEqual(["https://example.com", "docs/x.md#y"]);
    const page =
      "[web](https://example.com)\n[gone](docs/nope.md)\n[up](../../etc/passwd)\n[bad anchor](docs/cli.md#no-such-heading)\n[good](docs/cli.md#one-severity-model)\nsee https://example.org\n";
    expect(problems("README.md", page)).toEqual([
      "README.md:1: https://example.com: points outside the repository",
      "README.md:2: docs/nope.md: no such file",
      "README.md:3: ../../etc/passwd: leaves the repository",
      "README.md:4: docs/cli.md#no-such-heading: no heading with that anchor",
      "README.md:6: a bare URL GitHub would link: https://example.org",
    ]);
  });

  test("an anchor is the heading's text as shown (a link's text, no tag), or an HTML anchor", () => {
    expect([...anchors('## See [the limits](limits.md) <sup>new</sup>\n<a id="kept"></a>\n')]).toEqual([
      "kept",
      "see-the-limits-new",
    ]);
  });

  test("a file cited in prose must be in the repository; a path on the writer's machine never is", () => {
    const page = [
      "Measured in src/cli.ts and `test/unit/doc-links.test.ts`; the copy in src/nope/gone.ts is not.",
      "Cline's `src/services/mcp/McpHub.ts` (cline/cline) is another repository's; bench/results/<date>.md a pattern.",
      "Source: /work/shared/reference/ide-configs.md; and ~/.cursor/mcp.json.",
    ].join("\n");
    expect(citedFiles("docs/x.md", page)).toEqual([
      "docs/x.md:1: src/nope/gone.ts: no such file in the repository",
      "docs/x.md:3: /work/shared/reference/ide-configs.md: a file on one machine, not in the repository",
    ]);
  });
});
