/** The `diff -u` install shows before it writes a client's file (jsdiff, with our own headers). */
import { formatPatch, OMIT_HEADERS, structuredPatch, type StructuredPatch } from "diff";

/** Myers' search grows with the square of the edits (~100 ms at 500); past that, one hunk replaces all. */
const MAX_EDITS = 500;
const NO_EOL = "\\ No newline at end of file";

/**
 * `diff -u` output for two versions of a file (`before` "" and `beforeExists` false for a new
 * file). Empty when nothing changed. The headers are written here, not by jsdiff, which would
 * add an `Index:` line and quote non-ASCII names.
 */
export function unifiedDiff(before: string, after: string, label: string, beforeExists = true): string {
  if (before === after) return "";
  const options = { context: 3, maxEditLength: MAX_EDITS };
  const patch =
    structuredPatch(label, label, before, after, undefined, undefined, options) ?? replaceAll(before, after);
  return `--- ${beforeExists ? label : "/dev/null"}\n+++ ${label}\n${formatPatch(patch, OMIT_HEADERS)}`;
}

function replaceAll(before: string, after: string): StructuredPatch {
  const side = (text: string, sign: string): string[] => {
    if (text === "") return [];
    const lines = text.split("\n");
    if (lines.at(-1) === "") return lines.slice(0, -1).map((line) => sign + line);
    return [...lines.map((line) => sign + line), NO_EOL];
  };
  const removed = side(before, "-");
  const added = side(after, "+");
  const count = (lines: string[]) => lines.filter((line) => line !== NO_EOL).length;
  const hunk = {
    oldStart: 1,
    oldLines: count(removed),
    newStart: 1,
    newLines: count(added),
    lines: [...removed, ...added],
  };
  return { oldFileName: undefined, newFileName: undefined, oldHeader: undefined, newHeader: undefined, hunks: [hunk] };
}
