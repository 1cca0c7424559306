import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { StartupIndex, type IndexEntry } from "../../src/load/startup-index.ts";
import type { Skill } from "../../src/skill/skill.ts";

/**
 * Saving the listing drops content rows no load refers to any more; a save after a start where
 * nothing changed has nothing to drop, and must not scan (or write) the index at all.
 */
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function indexPath(): string {
  const dir = mkdtempSync(join(tmpdir(), "sc-index-save-"));
  dirs.push(dir);
  return join(dir, "index.sqlite");
}

const old = Date.now() - 60_000;
function entry(path: string, mtimeMs: number, template: string): IndexEntry {
  return {
    path,
    stamp: { size: template.length, mtimeMs, ino: 1 },
    skill: { id: path.slice(1) } as unknown as Skill,
    diagnostics: [],
    content: { template, examples: [] },
  };
}

/** The index's bytes on disk (the database and its write-ahead log). */
function bytesOf(path: string): string {
  return ["", "-wal"]
    .map((suffix) => {
      try {
        return readFileSync(path + suffix).toString("base64");
      } catch {
        return "";
      }
    })
    .join("|");
}

/** An index on disk holding files /a and /b, saved and closed as a process leaves it. */
function savedIndex(): { path: string; a: IndexEntry; b: IndexEntry } {
  const path = indexPath();
  const index = StartupIndex.open(path)!;
  const a = entry("/a", old, "A");
  const b = entry("/b", old, "B");
  expect(index.write([a, b])).toBe(true);
  expect(index.saveListing([a, b])).toBe(true);
  index.close();
  return { path, a, b };
}

describe("StartupIndex.saveListing", () => {
  test("after a start where nothing changed, saving touches nothing and keeps every row", () => {
    const { path, a, b } = savedIndex();

    const before = bytesOf(path);
    const again = StartupIndex.open(path)!;
    expect(again.lookup("/a", a.stamp)?.skill).toEqual(a.skill!);
    expect(again.saveListing([a, b])).toBe(true);
    expect(bytesOf(path)).toBe(before);
    expect(again.content("/b", b.stamp)).toEqual({ template: "B", examples: [] });
    again.close();
  });

  test("rows an earlier process left unreferenced (it died before saving) stay until a save that writes", () => {
    const path = indexPath();
    const first = StartupIndex.open(path)!;
    const a = entry("/a", old, "A");
    const orphan = entry("/a", old + 500, "A, a version nobody listed");
    first.write([a]);
    first.saveListing([a]);
    first.write([orphan]);
    first.close();

    const quiet = StartupIndex.open(path)!;
    expect(quiet.saveListing([a])).toBe(true);
    expect(quiet.content("/a", orphan.stamp)).toEqual({ template: "A, a version nobody listed", examples: [] });
    const b = entry("/b", old, "B");
    quiet.write([b]);
    expect(quiet.saveListing([a, b])).toBe(true);
    expect(quiet.content("/a", orphan.stamp)).toBeUndefined();
    expect(quiet.content("/a", a.stamp)).toEqual({ template: "A", examples: [] });
    quiet.close();
  });

  test("after a file changed, saving drops its old version's content and keeps the new one", () => {
    const { path, a, b } = savedIndex();

    const again = StartupIndex.open(path)!;
    const a2 = entry("/a", old + 1000, "A, edited");
    expect(again.write([a2])).toBe(true);
    expect(again.saveListing([a2, b])).toBe(true);
    expect(again.content("/a", a.stamp)).toBeUndefined();
    expect(again.content("/a", a2.stamp)).toEqual({ template: "A, edited", examples: [] });
    expect(again.content("/b", b.stamp)).toEqual({ template: "B", examples: [] });
    again.close();
  });

  test("after a file was deleted, saving drops its listing row and its content", () => {
    const { path, a, b } = savedIndex();

    const again = StartupIndex.open(path)!;
    expect(again.saveListing([b])).toBe(true);
    expect(again.has("/a")).toBe(false);
    expect(again.content("/a", a.stamp)).toBeUndefined();
    again.close();
    expect(StartupIndex.open(path)!.has("/a")).toBe(false);
  });

  test("a listing of 2,500 files is stored in chunks and read back whole, in order, after a reopen", () => {
    const path = indexPath();
    const index = StartupIndex.open(path)!;
    const entries = Array.from({ length: 2500 }, (_, i) => entry(`/s${String(i).padStart(4, "0")}`, old, `T${i}`));
    expect(index.write(entries)).toBe(true);
    expect(index.saveListing(entries)).toBe(true);
    index.close();

    const again = StartupIndex.open(path)!;
    for (const e of [entries[0]!, entries[999]!, entries[1000]!, entries[2499]!]) {
      expect(again.lookup(e.path, e.stamp)?.skill).toEqual(e.skill!);
      expect(again.content(e.path, e.stamp)).toEqual(e.content!);
    }
    // Dropping files rewrites the chunks: no row of the longer listing survives.
    expect(again.saveListing(entries.slice(0, 10))).toBe(true);
    again.close();
    const third = StartupIndex.open(path)!;
    expect(third.has(entries[9]!.path)).toBe(true);
    expect(third.has(entries[10]!.path)).toBe(false);
    expect(third.has(entries[2499]!.path)).toBe(false);
    third.close();
  });
});
