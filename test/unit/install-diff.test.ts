import { describe, expect, test } from "bun:test";
import { unifiedDiff } from "../../src/install/unified-diff.ts";
import { mulberry32 } from "../helpers/random.ts";

/**
 * Applies a unified diff the strict way `patch` does without fuzz: every hunk's context and
 * removed lines must be found at the stated line, so wrong numbers or lines fail here.
 */
function applyDiff(before: string, diff: string): string {
  if (diff === "") return before;
  const source = before === "" ? [] : before.split("\n");
  if (before.endsWith("\n")) source.pop();
  const lastHasNoEol = before !== "" && !before.endsWith("\n");
  // Each output line, and whether it has no newline after it.
  const out: [string, boolean][] = [];
  let at = 0;
  const copy = () => {
    out.push([source[at]!, lastHasNoEol && at === source.length - 1]);
    at++;
  };
  const lines = diff.split("\n").slice(2, -1);
  for (let i = 0; i < lines.length; ) {
    const header = /^@@ -(\d+),(\d+) \+(\d+),(\d+) @@$/.exec(lines[i]!);
    if (!header) throw new Error(`not a hunk header: ${lines[i]}`);
    const oldStart = Number(header[2]) === 0 ? Number(header[1]) : Number(header[1]) - 1;
    while (at < oldStart) copy();
    i++;
    while (i < lines.length && !lines[i]!.startsWith("@@")) {
      const line = lines[i]!;
      const noEol = lines[i + 1] === "\\ No newline at end of file";
      if (line[0] === " " || line[0] === "-") {
        if (source[at] !== line.slice(1))
          throw new Error(
            `line ${at + 1} is ${JSON.stringify(source[at])}, hunk says ${JSON.stringify(line.slice(1))}`,
          );
        if (line[0] === " ") out.push([source[at]!, noEol]);
        at++;
      } else if (line[0] === "+") out.push([line.slice(1), noEol]);
      else throw new Error(`unexpected diff line: ${line}`);
      i += noEol ? 2 : 1;
    }
  }
  while (at < source.length) copy();
  return out.map(([text, noEol]) => text + (noEol ? "" : "\n")).join("");
}

describe("unified diff", () => {
  test("the standard format: headers, hunk ranges, three lines of context", () => {
    const before = "a\nb\nc\nd\ne\nf\ng\nh\n";
    const after = "a\nb\nc\nd\nE\nf\ng\nh\n";
    expect(unifiedDiff(before, after, "~/.cursor/mcp.json")).toBe(
      "--- ~/.cursor/mcp.json\n+++ ~/.cursor/mcp.json\n@@ -2,7 +2,7 @@\n b\n c\n d\n-e\n+E\n f\n g\n h\n",
    );
  });

  test("a new file is diffed against /dev/null; no change gives an empty diff", () => {
    expect(unifiedDiff("", "{}\n", "x", false)).toBe("--- /dev/null\n+++ x\n@@ -0,0 +1,1 @@\n+{}\n");
    expect(unifiedDiff("same\n", "same\n", "x")).toBe("");
  });

  test("a missing final newline is marked", () => {
    expect(unifiedDiff("a", "a\nb\n", "x")).toBe(
      "--- x\n+++ x\n@@ -1,1 +1,2 @@\n-a\n\\ No newline at end of file\n+a\n+b\n",
    );
  });

  test("distant changes get separate hunks", () => {
    const before = `${Array.from({ length: 30 }, (_, i) => `l${i}`).join("\n")}\n`;
    const after = before.replace("l2\n", "L2\n").replace("l25\n", "L25\n");
    expect(unifiedDiff(before, after, "x").match(/^@@/gm)?.length).toBe(2);
  });

  test("property: 400 random edits, each diff applies back exactly", () => {
    const random = mulberry32(99);
    for (let t = 0; t < 400; t++) {
      const a = Array.from({ length: Math.floor(random() * 25) }, () => `line ${Math.floor(random() * 6)}`);
      const b = a
        .filter(() => random() > 0.15)
        .flatMap((l) => (random() < 0.1 ? [l, `new ${Math.floor(random() * 3)}`] : [l]));
      if (random() < 0.2) b.unshift("top");
      const before = a.join("\n") + (a.length > 0 && random() < 0.8 ? "\n" : "");
      const after = b.join("\n") + (b.length > 0 && random() < 0.8 ? "\n" : "");
      const diff = unifiedDiff(before, after, "f", before !== "");
      expect({ t, result: applyDiff(before, diff) }).toEqual({ t, result: after });
    }
  });

  test("past 500 edits: one hunk replaces the whole file, and it still applies", () => {
    const before = `${Array.from({ length: 600 }, (_, i) => `old ${i}`).join("\n")}\n`;
    const after = Array.from({ length: 600 }, (_, i) => `new ${i}`).join("\n");
    const diff = unifiedDiff(before, after, "f");
    expect(diff.match(/^@@.*$/gm)).toEqual(["@@ -1,600 +1,600 @@"]);
    expect(applyDiff(before, diff)).toBe(after);
  });
});
