/**
 * The cursor of `find_skills`' pages (docs/catalog.md), opaque to clients as the list methods'
 * cursors are (pagination.ts): base64url JSON naming the search it belongs to (a digest of the
 * query and tags, so a cursor stays short whatever was asked) and the last hit given, by rank
 * (score, then id). The next page is the hits ranking after that one, so a cursor stays
 * meaningful across a reload: nothing that still ranks after it is skipped.
 */
import type { RankKey } from "../../registry/search.ts";

interface FindCursorData {
  l: "find_skills";
  /** The query and tags, as the search read them: a cursor pages only its own search. */
  q: string;
  s: number;
  a: string;
}

function searchDigest(query: string, tags: readonly string[]): string {
  return Bun.SHA256.hash(JSON.stringify([query, tags]), "base64url").slice(0, 22);
}

export function encodeFindCursor(query: string, tags: readonly string[], last: RankKey): string {
  const data: FindCursorData = { l: "find_skills", q: searchDigest(query, tags), s: last.score, a: last.id };
  return Buffer.from(JSON.stringify(data), "utf8").toString("base64url");
}

/** Where the page after `cursor` starts, or undefined when it is not a cursor of this search. */
export function decodeFindCursor(cursor: string, query: string, tags: readonly string[]): RankKey | undefined {
  let data: Partial<FindCursorData> | undefined;
  try {
    data = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as Partial<FindCursorData>;
  } catch {
    return undefined;
  }
  if (
    typeof data !== "object" ||
    data === null ||
    data.l !== "find_skills" ||
    data.q !== searchDigest(query, tags) ||
    typeof data.s !== "number" ||
    !Number.isFinite(data.s) ||
    typeof data.a !== "string"
  )
    return undefined;
  return { score: data.s, id: data.a };
}
