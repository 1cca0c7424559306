import { lineDiff, type DiffLine } from "../examples/diff.ts";

const CONTEXT = 3;
/** Marks a last line that has no newline after it, so it differs from the same text with one. */
const NO_EOL = "\u0000";

function lines(text: string): string[] {
  if (text === "") return [];
  const parts = text.split("\n");
  if (parts.at(-1) === "") parts.pop();
  else parts[parts.length - 1] += NO_EOL;
  return parts;
}

/**
 * `diff -u` output for two versions of a file (`before` "" and `beforeLabel` undefined for a new
 * file). Empty when nothing changed. The common start and end are set aside first, so a small
 * edit in a large file (~/.claude.json grows with every project) costs little.
 */
export function unifiedDiff(before: string, after: string, label: string, beforeExists = true): string {
  if (before === after) return "";
  const a = lines(before);
  const b = lines(after);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const midA = a.slice(head, a.length - tail);
  const midB = b.slice(head, b.length - tail);
  const body: DiffLine[] =
    midA.length === 0 ? midB.map((text) => ({ kind: "+", text }))
    : midB.length === 0 ? midA.map((text) => ({ kind: "-", text }))
    : lineDiff(midA.join("\n"), midB.join("\n"));
  const all: DiffLine[] = [...a.slice(0, head).map((text) => ({ kind: " " as const, text })), ...body, ...a.slice(a.length - tail).map((text) => ({ kind: " " as const, text }))];

  const out = [`--- ${beforeExists ? label : "/dev/null"}`, `+++ ${label}`];
  let i = 0;
  let oldLine = 1;
  let newLine = 1;
  while (i < all.length) {
    if (all[i]!.kind === " ") {
      i++;
      oldLine++;
      newLine++;
      continue;
    }
    // A hunk: back up to CONTEXT lines, run until CONTEXT*2 unchanged lines in a row.
    const start = Math.max(0, i - CONTEXT);
    let end = i;
    let quiet = 0;
    while (end < all.length && quiet <= CONTEXT * 2) {
      quiet = all[end]!.kind === " " ? quiet + 1 : 0;
      end++;
    }
    end -= Math.max(0, quiet - CONTEXT);
    const hunk = all.slice(start, end);
    const oldStart = oldLine - (i - start);
    const newStart = newLine - (i - start);
    const oldCount = hunk.filter((l) => l.kind !== "+").length;
    const newCount = hunk.filter((l) => l.kind !== "-").length;
    out.push(`@@ -${oldCount === 0 ? oldStart - 1 : oldStart},${oldCount} +${newCount === 0 ? newStart - 1 : newStart},${newCount} @@`);
    for (const line of hunk) {
      const noEol = line.text.endsWith(NO_EOL);
      out.push(`${line.kind}${noEol ? line.text.slice(0, -1) : line.text}`);
      if (noEol) out.push("\\ No newline at end of file");
    }
    for (let j = i; j < end; j++) {
      if (all[j]!.kind !== "+") oldLine++;
      if (all[j]!.kind !== "-") newLine++;
    }
    i = end;
  }
  return out.join("\n") + "\n";
}
