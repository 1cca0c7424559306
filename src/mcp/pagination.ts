/**
 * Cursor pagination for `prompts/list`, `tools/list` and `resources/list`.
 *
 * A cursor names the last item of the page it ended (opaque to clients: base64url JSON), not an
 * offset. Lists are sorted by that key, so the next page starts at the first item sorting after
 * it, found by binary search in the cached listing. That keeps a cursor meaningful across a
 * reload: items added or removed elsewhere do not shift the page, nothing that existed
 * throughout is skipped or repeated, and a deleted last item does not invalidate it.
 */
import { SkillCentralError } from "../errors.ts";

export interface Page<T> {
  /** The listing itself when nothing was cut: no copy per request. */
  items: T[];
  nextCursor?: string;
}

interface CursorData {
  /** The list it belongs to, so a tools cursor cannot page prompts. */
  l: string;
  /** Key of the last item served. */
  a: string;
}

export function encodeCursor(list: string, after: string): string {
  const data: CursorData = { l: list, a: after };
  return Buffer.from(JSON.stringify(data), "utf8").toString("base64url");
}

/** The key a cursor resumes after; a cursor this server did not issue for `list` is -32602. */
export function decodeCursor(list: string, cursor: string): string {
  let data: unknown;
  try {
    data = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    data = undefined;
  }
  const valid =
    typeof data === "object" &&
    data !== null &&
    (data as CursorData).l === list &&
    typeof (data as CursorData).a === "string";
  if (!valid)
    throw new SkillCentralError(
      "invalid-params",
      `Invalid cursor for ${list}: pass back a nextCursor from an earlier ${list} result, or omit it to start over`,
    );
  return (data as CursorData).a;
}

/** Index of the first item whose key sorts after `key` (items sorted by key). */
function firstAfter<T>(items: readonly T[], keyOf: (item: T) => string, key: string): number {
  let low = 0;
  let high = items.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (keyOf(items[mid]!) <= key) low = mid + 1;
    else high = mid;
  }
  return low;
}

/**
 * One page of `items` (sorted by `keyOf`, in JavaScript string order). Without a page size
 * everything from the cursor on is one page: some clients never follow cursors.
 */
export function paginate<T>(
  items: T[],
  keyOf: (item: T) => string,
  list: string,
  cursor: string | undefined,
  pageSize: number | undefined,
): Page<T> {
  const start = cursor === undefined ? 0 : firstAfter(items, keyOf, decodeCursor(list, cursor));
  if (pageSize === undefined) return { items: start === 0 ? items : items.slice(start) };
  const end = Math.min(start + pageSize, items.length);
  const page = items.slice(start, end);
  return end < items.length ? { items: page, nextCursor: encodeCursor(list, keyOf(items[end - 1]!)) } : { items: page };
}
