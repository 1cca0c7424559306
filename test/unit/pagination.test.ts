import { describe, expect, test } from "bun:test";
import { SkillCentralError } from "../../src/errors.ts";
import { decodeCursor, encodeCursor, paginate } from "../../src/mcp/pagination.ts";

const key = (s: string) => s;
const names = ["a", "b", "c", "d", "e"];

function pages(items: string[], pageSize: number): string[][] {
  const out: string[][] = [];
  let cursor: string | undefined;
  do {
    const page = paginate(items, key, "prompts/list", cursor, pageSize);
    out.push(page.items);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return out;
}

describe("paginate", () => {
  test("without a page size, everything is one page with no cursor, and the listing is not copied", () => {
    const page = paginate(names, key, "prompts/list", undefined, undefined);
    expect(page).toEqual({ items: names });
    expect(page.items).toBe(names);
  });

  test("pages of the given size cover every item once; the last page has no nextCursor", () => {
    expect(pages(names, 2)).toEqual([["a", "b"], ["c", "d"], ["e"]]);
    expect(pages(names, 5)).toEqual([names]);
    expect(pages([], 3)).toEqual([[]]);
  });

  test("a cursor resumes after the key it names, even if that item is gone or others were added", () => {
    const first = paginate(names, key, "prompts/list", undefined, 2);
    const changed = ["a", "aa", "c", "ca", "d", "e"]; // "b" deleted, "aa" and "ca" added
    expect(paginate(changed, key, "prompts/list", first.nextCursor, 2).items).toEqual(["c", "ca"]);
  });

  test("a cursor past the end gives an empty last page", () => {
    const cursor = encodeCursor("prompts/list", "zzz");
    expect(paginate(names, key, "prompts/list", cursor, 2)).toEqual({ items: [] });
  });

  test("a cursor with no page size returns the rest in one page", () => {
    expect(paginate(names, key, "prompts/list", encodeCursor("prompts/list", "c"), undefined).items).toEqual([
      "d",
      "e",
    ]);
  });
});

describe("cursors", () => {
  test("are opaque strings that round-trip", () => {
    const cursor = encodeCursor("tools/list", "commit-conventions");
    expect(cursor).not.toContain("commit");
    expect(decodeCursor("tools/list", cursor)).toBe("commit-conventions");
  });

  test("another list's cursor, garbage and well-formed JSON of the wrong shape are invalid-params errors", () => {
    const attempts = [
      encodeCursor("tools/list", "x"),
      "garbage!",
      Buffer.from('{"l":"prompts/list","a":5}').toString("base64url"),
      "",
    ];
    for (const cursor of attempts) {
      let error: unknown;
      try {
        decodeCursor("prompts/list", cursor);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(SkillCentralError);
      expect((error as SkillCentralError).code).toBe("invalid-params");
      expect((error as SkillCentralError).message).toStartWith("Invalid cursor for prompts/list");
    }
  });
});
