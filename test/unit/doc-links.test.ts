import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { REPO_ROOT } from "../helpers/server.ts";

/**
 * Every link in the README and in docs/ stays inside the repository and arrives: the file exists
 * (in a clean clone, so nothing ignored or generated), and an #anchor names a heading of it.
 * A link to the web is not allowed, and neither is a bare URL in prose, which GitHub turns into one.
 */

const PAGES = [
  "README.md",
  ...readdirSync(join(REPO_ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];

/** The text a reader sees as prose: fenced blocks and inline code removed (neither makes links). */
function prose(markdown: string): string {
  return markdown
    .replace(/^```[\s\S]*?^```/gm, (block) => block.replace(/[^\n]/g, " "))
    .replace(/`[^`\n]*`/g, (code) => " ".repeat(code.length));
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens; repeats get -1, -2. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const match of markdown.replace(/^```[\s\S]*?^```/gm, "").matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = match[1]!
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
  // Link targets were checked above; what is left of a URL in prose is a bare one.
  const bare = prose(markdown).replace(/\]\([^)]*\)/g, (target) => " ".repeat(target.length));
  for (const match of bare.matchAll(/\b(?:https?:\/\/|www\.)\S+/g)) {
    out.push(`${page}:${bare.slice(0, match.index).split("\n").length}: a bare URL GitHub would link: ${match[0]}`);
  }
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
});
