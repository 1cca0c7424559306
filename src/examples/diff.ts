/** The line diff a failed example shows (jsdiff, Myers'), bounded: past 500 edits a plain before and after. */
import { diffArrays } from "diff";

export interface DiffLine {
  /** `" "` in both, `"-"` only expected, `"+"` only actual. */
  kind: " " | "-" | "+";
  text: string;
}

/** Myers' search grows with the square of the edits (~100 ms at 500); past that, a plain before/after. */
const MAX_EDITS = 500;

/** A line diff (jsdiff, Myers' algorithm), expected first: what a failed example shows. */
export function lineDiff(expected: string, actual: string): DiffLine[] {
  const a = expected.split("\n");
  const b = actual.split("\n");
  const changes = diffArrays(a, b, { maxEditLength: MAX_EDITS }) ?? [
    { removed: true, added: false, value: a },
    { removed: false, added: true, value: b },
  ];
  const kind = (change: { added: boolean; removed: boolean }) => (change.added ? "+" : change.removed ? "-" : " ");
  return changes.flatMap((change) => change.value.map((text): DiffLine => ({ kind: kind(change), text })));
}

/** Unchanged runs longer than this are folded to their edges. */
const CONTEXT = 3;

/**
 * `- expected` / `+ actual` lines with a few unchanged lines of context around each change.
 * Differences a reader cannot see (trailing spaces, tabs) are made visible.
 */
export function formatDiff(
  lines: readonly DiffLine[],
  paint: { removed(s: string): string; added(s: string): string } = { removed: (s) => s, added: (s) => s },
): string[] {
  const visible = (text: string) => text.replace(/\t/g, "→").replace(/ +$/, (m) => "·".repeat(m.length));
  const near = lines.map((_, index) =>
    lines.slice(Math.max(0, index - CONTEXT), index + CONTEXT + 1).some((l) => l.kind !== " "),
  );
  const out: string[] = [];
  let folded = 0;
  lines.forEach((line, index) => {
    if (line.kind === " " && !near[index]) {
      folded++;
      return;
    }
    if (folded > 0) out.push(`  … ${folded} unchanged line${folded === 1 ? "" : "s"}`);
    folded = 0;
    if (line.kind === "-") out.push(paint.removed(`- ${visible(line.text)}`));
    else if (line.kind === "+") out.push(paint.added(`+ ${visible(line.text)}`));
    else out.push(`  ${line.text}`);
  });
  if (folded > 0) out.push(`  … ${folded} unchanged line${folded === 1 ? "" : "s"}`);
  return out;
}
