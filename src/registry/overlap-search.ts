/**
 * The pair search behind overlap.ts, with its work and memory bounded whatever the catalog: a
 * catalog of look-alike skills (hundreds generated from one template) has pairs in the square
 * of its size, and listing or even holding them all took gigabytes. Each skill keeps only its
 * PER_SKILL strongest competitors and a count of the rest, so what is kept is linear in the
 * catalog. The search is exact (every pair sharing a term is scored, each once) while that work,
 * known before it starts from the posting lists' lengths, is within EXACT_WORK; past it, each
 * skill scores at most CANDIDATES others, found through its rarest terms first and each term's
 * heaviest postings first, so the work is linear too and the counts are lower bounds.
 *
 * It is a generator that yields between slices of skills, so that the board can run it between
 * its requests; the CLI runs it to the end at once.
 */
import { MAX_FINDINGS_PER_KIND } from "../skill/findings.ts";

/** Competitors kept per skill: a file's warnings of one kind are capped at the same number (docs/limits.md). */
export const PER_SKILL = MAX_FINDINGS_PER_KIND;
/** Posting visits an exact search may take (about 0.1 s here); a catalog that needs more is searched bounded. */
export const EXACT_WORK = 20_000_000;
/** Others a skill is scored against in a bounded search. */
const CANDIDATES = 200;
/** Posting visits between two yields: a slice stays within a few milliseconds. */
const SLICE_WORK = 200_000;

/** Unit TF-IDF vectors, as term ids and weights per skill, and posting lists per term. */
export interface Vectors {
  /** Per skill: its terms (ids into the posting lists) and their weights. */
  terms: Int32Array[];
  weights: Float64Array[];
  /** Per term: the skills it is in (ascending) and its weight in each. */
  postings: { docs: Int32Array; weights: Float64Array }[];
  /** Per skill: its place among the distinct ids in code-unit order; the same id, the same place. */
  rank: number[];
}

/** One skill's strongest competitors (by input index, score in thousandths), and how many it has in all. */
export interface Competitors {
  top: { other: number; milli: number }[];
  count: number;
}

export interface SearchResult {
  perSkill: Competitors[];
  /** Distinct pairs at or above the minimum: exact, or a lower bound when `exact` is false. */
  total: number;
  exact: boolean;
}

/** Per-skill top lists in flat arrays: n × PER_SKILL entries at most, whatever the pairs. */
class TopLists {
  private readonly other: Int32Array;
  private readonly milli: Int16Array;
  private readonly size: Uint8Array;
  readonly count: Float64Array;
  constructor(
    n: number,
    private readonly rank: readonly number[],
  ) {
    this.other = new Int32Array(n * PER_SKILL);
    this.milli = new Int16Array(n * PER_SKILL);
    this.size = new Uint8Array(n);
    this.count = new Float64Array(n);
  }

  /** Higher score first, then the other skill's id. */
  private before(milli: number, other: number, at: number): boolean {
    const m = this.milli[at]!;
    return milli > m || (milli === m && this.rank[other]! < this.rank[this.other[at]!]!);
  }

  offer(self: number, other: number, milli: number): void {
    this.count[self]!++;
    const base = self * PER_SKILL;
    let size = this.size[self]!;
    if (size === PER_SKILL) {
      if (!this.before(milli, other, base + size - 1)) return;
      size--;
    } else this.size[self] = size + 1;
    let at = base + size;
    while (at > base && this.before(milli, other, at - 1)) {
      this.other[at] = this.other[at - 1]!;
      this.milli[at] = this.milli[at - 1]!;
      at--;
    }
    this.other[at] = other;
    this.milli[at] = milli;
  }

  list(self: number): Competitors {
    const top: Competitors["top"] = [];
    const base = self * PER_SKILL;
    for (let k = 0; k < this.size[self]!; k++) top.push({ other: this.other[base + k]!, milli: this.milli[base + k]! });
    return { top, count: this.count[self]! };
  }
}

/** The score in thousandths that is kept, or 0 when the pair is not. */
function kept(dot: number, min: number): number {
  const milli = Math.min(1000, Math.round(dot * 1000));
  return milli <= 0 || milli / 1000 < min ? 0 : milli;
}

/**
 * Every pair of skills scoring at least `min` (0: sharing a term) is offered to both skills' top
 * lists, once: postings are in doc order, so each skill walks only the later ones.
 */
function* exactSearch(v: Vectors, min: number, lists: TopLists): Generator<void, number> {
  const n = v.terms.length;
  const dots = new Float64Array(n);
  const touched: number[] = [];
  let total = 0;
  let work = 0;
  for (let i = 0; i < n; i++) {
    const terms = v.terms[i]!;
    const weights = v.weights[i]!;
    for (let t = 0; t < terms.length; t++) {
      const { docs, weights: posted } = v.postings[terms[t]!]!;
      const wi = weights[t]!;
      for (let k = docs.length - 1; k >= 0 && docs[k]! > i; k--) {
        const j = docs[k]!;
        if (dots[j] === 0) touched.push(j);
        dots[j] = dots[j]! + wi * posted[k]!;
      }
      work += docs.length;
    }
    for (const j of touched) {
      const milli = kept(dots[j]!, min);
      dots[j] = 0;
      if (milli === 0 || v.rank[i] === v.rank[j]) continue;
      lists.offer(i, j, milli);
      lists.offer(j, i, milli);
      total++;
    }
    touched.length = 0;
    if (work >= SLICE_WORK) {
      work = 0;
      yield;
    }
  }
  return total;
}

/**
 * Each skill scores at most CANDIDATES others: those its rarest terms lead to, each term's
 * heaviest postings first (the skills that term says most about). Each score is the whole
 * cosine, so a pair found is scored as the exact search scores it.
 */
function* boundedSearch(v: Vectors, min: number, lists: TopLists): Generator<void, number> {
  const n = v.terms.length;
  const heaviest = v.postings.map(({ docs, weights }) => {
    const order = Array.from(docs.keys()).sort((x, y) => weights[y]! - weights[x]! || docs[x]! - docs[y]!);
    return Int32Array.from(order, (k) => docs[k]!);
  });
  const mine = new Float64Array(v.postings.length);
  const seen = new Int32Array(n).fill(-1);
  const candidates: number[] = [];
  let work = 0;
  for (let i = 0; i < n; i++) {
    const terms = v.terms[i]!;
    const weights = v.weights[i]!;
    for (let t = 0; t < terms.length; t++) mine[terms[t]!] = weights[t]!;
    const rarest = Array.from(terms).sort((x, y) => heaviest[x]!.length - heaviest[y]!.length || x - y);
    for (const term of rarest) {
      const docs = heaviest[term]!;
      for (let k = 0; k < docs.length && candidates.length < CANDIDATES; k++) {
        const j = docs[k]!;
        if (j === i || seen[j] === i) continue;
        seen[j] = i;
        candidates.push(j);
      }
      if (candidates.length >= CANDIDATES) break;
    }
    for (const j of candidates) {
      if (v.rank[i] === v.rank[j]) continue;
      let dot = 0;
      const other = v.terms[j]!;
      const otherWeights = v.weights[j]!;
      for (let t = 0; t < other.length; t++) dot += mine[other[t]!]! * otherWeights[t]!;
      work += other.length;
      const milli = kept(dot, min);
      if (milli !== 0) lists.offer(i, j, milli);
    }
    for (let t = 0; t < terms.length; t++) mine[terms[t]!] = 0;
    work += candidates.length;
    candidates.length = 0;
    if (work >= SLICE_WORK) {
      work = 0;
      yield;
    }
  }
  // Each pair was counted by one or both of its skills.
  let counted = 0;
  for (let i = 0; i < n; i++) counted += lists.count[i]!;
  return Math.ceil(counted / 2);
}

/** The posting visits an exact search takes: each pair of skills in a term's list, once. */
export function exactWork(v: Vectors): number {
  let work = 0;
  for (const { docs } of v.postings) work += (docs.length * (docs.length - 1)) / 2;
  return work;
}

/** Every skill's strongest competitors at or above `min`, yielding between slices. */
export function* searchPairs(v: Vectors, min: number): Generator<void, SearchResult> {
  const n = v.terms.length;
  const lists = new TopLists(n, v.rank);
  const exact = exactWork(v) <= EXACT_WORK;
  const total = exact ? yield* exactSearch(v, min, lists) : yield* boundedSearch(v, min, lists);
  return { perSkill: Array.from({ length: n }, (_, i) => lists.list(i)), total, exact };
}
