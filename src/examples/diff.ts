export interface DiffLine {
  /** `" "` in both, `"-"` only expected, `"+"` only actual. */
  kind: " " | "-" | "+";
  text: string;
}

/** Beyond this many cells the table would be large; such texts get a plain before/after. */
const MAX_CELLS = 4_000_000;

/** A line diff (longest common subsequence), expected first: what a failed example shows. */
export function lineDiff(expected: string, actual: string): DiffLine[] {
  const a = expected.split("\n");
  const b = actual.split("\n");
  if (a.length * b.length > MAX_CELLS) {
    return [...a.map((text) => ({ kind: "-" as const, text })), ...b.map((text) => ({ kind: "+" as const, text }))];
  }
  // lcs[i][j]: length of the longest common subsequence of a[i..] and b[j..].
  const lcs = Array.from({ length: a.length + 1 }, () => new Uint32Array(b.length + 1));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
    }
  }
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      out.push({ kind: " ", text: a[i]! });
      i++;
      j++;
    } else if (lcs[i + 1]![j]! >= lcs[i]![j + 1]!) out.push({ kind: "-", text: a[i++]! });
    else out.push({ kind: "+", text: b[j++]! });
  }
  while (i < a.length) out.push({ kind: "-", text: a[i++]! });
  while (j < b.length) out.push({ kind: "+", text: b[j++]! });
  return out;
}

/** Unchanged runs longer than this are folded to their edges. */
const CONTEXT = 3;

/**
 * `- expected` / `+ actual` lines with a few unchanged lines of context around each change.
 * Differences a reader cannot see (trailing spaces, tabs) are made visible.
 */
export function formatDiff(lines: readonly DiffLine[], paint: { removed(s: string): string; added(s: string): string } = { removed: (s) => s, added: (s) => s }): string[] {
  const visible = (text: string) => text.replace(/\t/g, "→").replace(/ +$/, (m) => "·".repeat(m.length));
  const near = lines.map((_, index) => lines.slice(Math.max(0, index - CONTEXT), index + CONTEXT + 1).some((l) => l.kind !== " "));
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
