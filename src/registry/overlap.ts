/**
 * Skills that compete for the same request: a model choosing between two skills that say the
 * same thing in other words picks the wrong one as often as the right one. Each skill becomes a
 * TF-IDF vector over its name, title, tags and description (the search index's terms and
 * stemming, each group of the team vocabulary, vocabulary.ts, folded to one term), and a pair's
 * score is the cosine of their vectors, in [0, 1]. Computed once for the whole catalog: only
 * pairs that share a term are ever compared (an inverted index), so 1,000 skills take
 * milliseconds, not a million comparisons.
 */
import type { Diagnostic } from "../diagnostics.ts";
import type { Candidate } from "./registry.ts";
import { searchPairs, type SearchResult, type Vectors } from "./overlap-search.ts";
import { terms } from "./search-terms.ts";
import { foldedTerm } from "./vocabulary.ts";

/** At or above this score, `validate` warns that two skills compete (docs/catalog.md). */
export const COMPETING_THRESHOLD = 0.3;

/** How much each field's words count: what a skill is called outweighs what it says. */
const FIELD_WEIGHTS: readonly { weight: number; text: (c: OverlapInput) => string }[] = [
  { weight: 3, text: (c) => c.id.replace(/-/g, " ") },
  { weight: 2, text: (c) => c.title ?? "" },
  { weight: 2, text: (c) => c.tags.join(" ") },
  { weight: 1, text: (c) => c.description },
];

/** A term in more than this share of a catalog (of at least 10 skills) says nothing about competition. */
const COMMON_SHARE = 0.5;

/** What the score reads of a skill. */
export interface OverlapInput {
  id: string;
  title?: string;
  description: string;
  tags: readonly string[];
}

export interface OverlapPair {
  a: string;
  b: string;
  score: number;
}

export function overlapInput({ skill }: Candidate): OverlapInput {
  return {
    id: skill.id,
    ...(skill.title !== undefined && { title: skill.title }),
    description: skill.description,
    tags: skill.tags,
  };
}

function termCounts(skill: OverlapInput): Map<string, number> {
  const counts = new Map<string, number>();
  for (const { weight, text } of FIELD_WEIGHTS)
    for (const term of terms(text(skill), { joined: false })) {
      const folded = foldedTerm(term);
      counts.set(folded, (counts.get(folded) ?? 0) + weight);
    }
  return counts;
}

/** Each skill's place among the distinct ids in code-unit order; the same id, the same place. */
function idRanks(skills: readonly OverlapInput[]): number[] {
  const ids = [...new Set(skills.map((s) => s.id))].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
  const place = new Map(ids.map((id, r) => [id, r]));
  return skills.map((s) => place.get(s.id)!);
}

/** Unit TF-IDF vectors of `skills`, as term ids, with posting lists (overlap-search.ts walks them). */
function vectorsOf(skills: readonly OverlapInput[]): Vectors {
  const n = skills.length;
  const counts = skills.map(termCounts);
  const df = new Map<string, number>();
  for (const c of counts) for (const term of c.keys()) df.set(term, (df.get(term) ?? 0) + 1);
  const common = n >= 10 ? n * COMMON_SHARE : Number.POSITIVE_INFINITY;
  const ids = new Map<string, number>();
  const growing: { docs: number[]; weights: number[] }[] = [];
  const terms: Int32Array[] = [];
  const weights: Float64Array[] = [];
  counts.forEach((c, doc) => {
    const vector: [number, number][] = [];
    let norm = 0;
    for (const [term, tf] of c) {
      const d = df.get(term)!;
      if (d > common) continue;
      const w = (1 + Math.log(tf)) * Math.log(1 + n / d);
      let id = ids.get(term);
      if (id === undefined) {
        id = growing.length;
        ids.set(term, id);
        growing.push({ docs: [], weights: [] });
      }
      vector.push([id, w]);
      norm += w * w;
    }
    norm = Math.sqrt(norm) || 1;
    terms.push(Int32Array.from(vector, ([id]) => id));
    weights.push(Float64Array.from(vector, ([, w]) => w / norm));
    for (const [id, w] of vector) {
      growing[id]!.docs.push(doc);
      growing[id]!.weights.push(w / norm);
    }
  });
  const postings = growing.map((p) => ({ docs: Int32Array.from(p.docs), weights: Float64Array.from(p.weights) }));
  return { terms, weights, postings, rank: idRanks(skills) };
}

/** What the search found: the pairs to list, and each skill's strongest competitors with its count. */
export interface Overlap {
  /** Each skill's strongest pairs (PER_SKILL of them at most), each pair once, highest first, ties by ids; `a` is the smaller id. */
  pairs: OverlapPair[];
  /** Pairs at or above the minimum in all, listed or not: exact, or a lower bound when `exact` is false. */
  total: number;
  /** False when the catalog was too large to score every pair (overlap-search.ts). */
  exact: boolean;
  /** Per skill, in input order: its strongest competitors (by index into the input) and how many it has. */
  perSkill: { top: { other: number; score: number }[]; count: number }[];
}

/** The search as slices (the board runs one between its requests); `overlap` runs them all at once. */
export function* overlapSteps(skills: readonly OverlapInput[], min = 0): Generator<void, Overlap> {
  const vectors = vectorsOf(skills);
  yield;
  const found = yield* searchPairs(vectors, min);
  return listed(skills, vectors.rank, found);
}

function listed(skills: readonly OverlapInput[], rank: readonly number[], found: SearchResult): Overlap {
  const n = skills.length;
  // Each pair is kept as one number that sorts in output order (score descending, then a, then
  // b by id), so that many pairs are sorted natively, not by a comparator over objects.
  const keys = new Set<number>();
  found.perSkill.forEach(({ top }, i) => {
    for (const { other, milli } of top) {
      const ri = rank[i]!;
      const rj = rank[other]!;
      keys.add(((1000 - milli) * n + Math.min(ri, rj)) * n + Math.max(ri, rj));
    }
  });
  const byRank = new Array<string>(n);
  skills.forEach((s, i) => {
    byRank[rank[i]!] = s.id;
  });
  const sorted = Float64Array.from(keys).sort();
  const pairs = new Array<OverlapPair>(sorted.length);
  for (let k = 0; k < sorted.length; k++) {
    const key = sorted[k]!;
    const b = key % n;
    const rest = (key - b) / n;
    const a = rest % n;
    pairs[k] = { a: byRank[a]!, b: byRank[b]!, score: (1000 - (rest - a) / n) / 1000 };
  }
  const perSkill = found.perSkill.map(({ top, count }) => ({
    top: top.map(({ other, milli }) => ({ other, score: milli / 1000 })),
    count,
  }));
  return { pairs, total: found.total, exact: found.exact, perSkill };
}

/** Runs every slice of the search at once. */
export function findOverlap(skills: readonly OverlapInput[], min = 0): Overlap {
  const steps = overlapSteps(skills, min);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/**
 * Each skill's strongest pairs scoring at least `min` (0 excludes pairs that share no term), each
 * pair once, highest first, ties by ids; `a` is the smaller id. Skills with the same id are one
 * skill and never paired.
 */
export function overlapPairs(skills: readonly OverlapInput[], min = 0): OverlapPair[] {
  return findOverlap(skills, min).pairs;
}

/** One candidate per id (the last, as the registry resolves them): the skills that are scored. */
export function distinctSkills(candidates: readonly Candidate[]): Candidate[] {
  return [...new Map(candidates.map((c) => [c.skill.id, c])).values()];
}

/**
 * `competing-skills` warnings for `validate`: on each skill's file, one per skill it competes
 * with at or above the threshold, naming the other and its source, at the description where
 * `locate` knows it; the strongest PER_SKILL of them, and the rest counted in one more line
 * (the cap every kind of finding has per file, docs/limits.md).
 */
export function competingWarnings(
  candidates: readonly Candidate[],
  locate: (path: string) => Diagnostic["position"] | undefined = () => undefined,
): Diagnostic[] {
  const skills = distinctSkills(candidates);
  return competingFindings(skills, findOverlap(skills.map(overlapInput), COMPETING_THRESHOLD), locate);
}

/** The warnings for `skills` (distinct ids) from their search at COMPETING_THRESHOLD. */
export function competingFindings(
  skills: readonly Candidate[],
  found: Overlap,
  locate: (path: string) => Diagnostic["position"] | undefined,
): Diagnostic[] {
  const out: Diagnostic[] = [];
  const hint = "make each description say what sets it apart and when to use it, or merge the two";
  found.perSkill.forEach(({ top, count }, i) => {
    if (count === 0) return;
    const self = skills[i]!;
    const position = locate(self.path);
    const at = {
      severity: "warning" as const,
      code: "competing-skills",
      file: self.path,
      ...(position && { position }),
    };
    for (const { other, score } of top) {
      const them = skills[other]!;
      out.push({
        ...at,
        message: `"${self.skill.id}" may compete with "${them.skill.id}" (${them.source}) for the same requests: overlap score ${score}, at or above ${COMPETING_THRESHOLD}`,
        hint,
      });
    }
    const more = count - top.length;
    if (more <= 0) return;
    const many = found.exact ? `${more} more skills` : `at least ${more} more skills`;
    out.push({
      ...at,
      message: `…and ${many} compete with "${self.skill.id}" at or above ${COMPETING_THRESHOLD}, not listed (${found.exact ? "" : "at least "}${count} in all; the strongest ${top.length} are above)`,
      hint: `${hint}; skill-central overlap lists each skill's strongest pairs`,
    });
  });
  return out;
}
