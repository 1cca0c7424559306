/** "Did you mean": edit distance and the nearest candidates, for typos in ids, keys and commands. */

let rows = [new Uint32Array(64), new Uint32Array(64), new Uint32Array(64)] as const;

export interface EditDistanceOptions {
  /** Anything further is `limit + 1`, known as soon as a whole row is over it: no later row comes back under. */
  limit?: number;
  /** A swap of neighbours is one edit (optimal string alignment; the default), or two (Levenshtein). */
  swaps?: boolean;
}

/**
 * Edits from `a` to `b`. Three rows of the table suffice (a swap looks two rows back), and they
 * are reused: a search compares one query term with thousands of terms.
 */
export function editDistance(a: string, b: string, options: EditDistanceOptions = {}): number {
  const limit = options.limit ?? Infinity;
  const swaps = options.swaps ?? true;
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  const cols = b.length + 1;
  if (rows[0].length < cols) rows = [new Uint32Array(cols), new Uint32Array(cols), new Uint32Array(cols)];
  let older = rows[0];
  let previous = rows[1];
  let current = rows[2];
  for (let j = 0; j < cols; j++) previous[j] = j;
  for (let i = 1; i <= a.length; i++) {
    const ca = a.charCodeAt(i - 1);
    current[0] = i;
    let rowBest = i;
    for (let j = 1; j < cols; j++) {
      const cb = b.charCodeAt(j - 1);
      let best = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (ca === cb ? 0 : 1));
      if (swaps && i > 1 && j > 1 && ca === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === cb)
        best = Math.min(best, older[j - 2]! + 1);
      current[j] = best;
      if (best < rowBest) rowBest = best;
    }
    if (rowBest > limit) return limit + 1;
    const spare = older;
    older = previous;
    previous = current;
    current = spare;
  }
  return Math.min(previous[b.length]!, limit + 1);
}

/**
 * The candidate a typo most likely meant, or nothing when none is close: within a third of the
 * input's length in edits (at least 1, at most 3), or a candidate that starts with the input.
 */
export function closest(input: string, candidates: Iterable<string>): string | undefined {
  const needle = input.toLowerCase();
  const list = [...candidates];
  const limit = Math.min(3, Math.max(1, Math.floor(needle.length / 3)));
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of list) {
    // Lengths that differ by more than the limit need more edits than it allows: no table needed
    // (a generated file can hold thousands of long unknown keys, each compared with every keyword).
    const lower = candidate.toLowerCase();
    if (Math.abs(lower.length - needle.length) > limit) continue;
    const distance = editDistance(needle, lower);
    if (!best || distance < best.distance) best = { candidate, distance };
  }
  if (best && best.distance <= limit) return best.candidate;
  for (const candidate of list) if (needle.length >= 2 && candidate.toLowerCase().startsWith(needle)) return candidate;
  return undefined;
}

/** ` (did you mean "x"?)`, or nothing. */
export function didYouMean(input: string, candidates: Iterable<string>, quote = true): string {
  const match = closest(input, candidates);
  if (match === undefined) return "";
  return quote ? ` (did you mean "${match}"?)` : ` (did you mean ${match}?)`;
}

/** Longer inputs are compared by their start: no id is longer, and edits cost length squared. */
const MAX_COMPARED_CHARS = 100;

/**
 * The `count` candidates nearest to `input`, nearest first: by edits, where a candidate that
 * contains the input (or is contained in it) counts as one edit away; ties go alphabetically.
 * For "did you mean one of these" lists, where a wrong guess costs nothing.
 */
export function nearest(input: string, candidates: Iterable<string>, count = 3): string[] {
  // A request may send a megabyte of name: comparing that with every candidate is not on.
  const needle = input.slice(0, MAX_COMPARED_CHARS).toLowerCase();
  const scored: { candidate: string; distance: number }[] = [];
  for (const candidate of candidates) {
    const lower = candidate.toLowerCase();
    const contains = needle.length >= 3 && (lower.includes(needle) || needle.includes(lower));
    scored.push({
      candidate,
      distance: contains ? Math.min(1, editDistance(needle, lower)) : editDistance(needle, lower),
    });
  }
  scored.sort(
    (a, b) => a.distance - b.distance || (a.candidate < b.candidate ? -1 : a.candidate > b.candidate ? 1 : 0),
  );
  return scored.slice(0, count).map((s) => s.candidate);
}
