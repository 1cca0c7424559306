import { describe, expect, test } from "bun:test";
import { outputWidth } from "../../src/cli-output/columns.ts";
import { formatTable, truncate } from "../../src/cli-output/table.ts";
import { displayPath } from "../../src/storage/display-path.ts";

const COPY = "/home/me/.cache/skill-central/git/github.com-acme-skills-59301f78ef389d64/copies/0f1e1a4c9d-32c1cf49a2fe";

describe("a git or url layer's file, as people read it", () => {
  const places = { cwd: "/work/project", copies: [{ dir: COPY, label: "team@0f1e1a4" }] };

  test("named by its layer and commit, the path inside the layer after a colon", () => {
    expect(displayPath(`${COPY}/release-notes/SKILL.md`, places)).toBe("team@0f1e1a4:release-notes/SKILL.md");
    // The copy's folder itself (doctor's layer table).
    expect(displayPath(COPY, places)).toBe("team@0f1e1a4:");
  });

  test("the project's files stay relative to it, others absolute; a folder beside the copy is not in it", () => {
    expect(displayPath("/work/project/.skills/a.yaml", places)).toBe(".skills/a.yaml");
    expect(displayPath(`${COPY}-other/x/SKILL.md`, places)).toBe(`${COPY}-other/x/SKILL.md`);
    // Without copies (--verbose), the cache path.
    expect(displayPath(`${COPY}/release-notes/SKILL.md`, { cwd: "/work/project" })).toBe(
      `${COPY}/release-notes/SKILL.md`,
    );
  });
});

describe("the width output is fitted to", () => {
  test("COLUMNS wins; else a terminal's width; piped, no limit", () => {
    expect(outputWidth({ isTTY: true, columns: 120 }, { COLUMNS: "80" })).toEqual({ columns: 80 });
    expect(outputWidth({ isTTY: true, columns: 120 }, {})).toEqual({ columns: 120 });
    expect(outputWidth({ isTTY: false }, { COLUMNS: "90" })).toEqual({ columns: 90 });
    expect(outputWidth({ isTTY: false }, {})).toEqual({});
  });

  test("a COLUMNS that is not a positive whole number is ignored; a tiny one is raised to 20", () => {
    expect(outputWidth({ isTTY: true, columns: 100 }, { COLUMNS: "wide" })).toEqual({ columns: 100 });
    expect(outputWidth({ isTTY: false }, { COLUMNS: "0" })).toEqual({});
    expect(outputWidth({ isTTY: false }, { COLUMNS: "5" })).toEqual({ columns: 20 });
  });
});

describe("tables fitted to a width", () => {
  const rows = [
    ["ID", "TAGS", "DESCRIPTION"],
    ["review", "review,quality,team", "Review a pull request for bugs and style"],
  ];

  test("a column listed in drop is left out when the last would have less than its room", () => {
    expect(formatTable(rows, { maxWidth: 40, drop: { columns: [1], lastWidth: 20 } })).toBe(
      "ID      DESCRIPTION\nreview  Review a pull request for bugs …\n",
    );
    // With room enough, nothing is dropped.
    expect(formatTable(rows, { maxWidth: 80, drop: { columns: [1], lastWidth: 20 } })).toContain("TAGS");
  });

  test("widths are the terminal's: a wide character takes two columns and is never cut in half", () => {
    expect(Bun.stringWidth(truncate("説明文です", 6))).toBeLessThanOrEqual(6);
    expect(truncate("説明文です", 6)).toBe("説明…");
    const out = formatTable(
      [
        ["名前", "X"],
        ["a", "y"],
      ],
      {},
    );
    expect(out).toBe("名前  X\na     y\n");
  });
});
