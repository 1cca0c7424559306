/**
 * Skills that compete for the same request: a model choosing between two skills that say the
 * same thing in other words picks the wrong one as often as the right one. Each skill becomes a
 * TF-IDF vector over its name, title, tags and description (the search index's terms and
 * stemming, with synonyms folded to one term), and a pair's score is the cosine of their vectors,
 * in [0, 1]. Computed once for the whole catalog: only pairs that share a term are ever compared
 * (an inverted index), so 1,000 skills take milliseconds, not a million comparisons.
 */
import type { Diagnostic } from "../diagnostics.ts";
import type { Candidate } from "./registry.ts";
import { addPosting, type GrowingPostings, stem, terms } from "./search-terms.ts";

/** At or above this score, `validate` warns that two skills compete (docs/catalog.md). */
export const COMPETING_THRESHOLD = 0.3;

/**
 * Words a team uses for one thing: folded to the group's first word, so "SQL query helper" and
 * "database questions" share a term. Written as words; stemmed once, as `terms` does.
 */
const SYNONYM_GROUPS: readonly (readonly string[])[] = [
  ["sql", "query", "database", "db", "postgres", "mysql"],
  ["test", "spec", "check", "unit", "verify"],
  ["review", "audit", "critique", "inspect"],
  ["deploy", "release", "ship", "rollout"],
  ["doc", "docs", "documentation", "readme", "document"],
  ["bug", "debug", "defect", "troubleshoot", "diagnose"],
  ["incident", "outage", "postmortem", "retrospective"],
  ["commit", "git"],
  ["pr", "pull", "merge"],
  ["refactor", "restructure", "cleanup"],
  ["security", "vulnerability", "vuln", "secure"],
  ["performance", "perf", "latency", "slow", "optimize", "optimise"],
  ["write", "draft", "author", "compose"],
  ["explain", "summarize", "summarise", "describe"],
];

const CANONICAL = new Map<string, string>(
  SYNONYM_GROUPS.flatMap((group) => group.map((word) => [stem(word), stem(group[0]!)] as const)),
);

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
      const folded = CANONICAL.get(term) ?? term;
      counts.set(folded, (counts.get(folded) ?? 0) + weight);
    }
  return counts;
}

/**
 * Every pair scoring at least `min` (0 excludes pairs that share no term), highest first, ties by
 * ids; `a` is the smaller id. Skills with the same id are one skill and never paired.
 */
export function overlapPairs(skills: readonly OverlapInput[], min = 0): OverlapPair[] {
  const n = skills.length;
  const counts = skills.map(termCounts);
  const df = new Map<string, number>();
  for (const c of counts) for (const term of c.keys()) df.set(term, (df.get(term) ?? 0) + 1);
  const common = n >= 10 ? n * COMMON_SHARE : Number.POSITIVE_INFINITY;

  // Unit TF-IDF vectors as posting lists: term → (doc, weight).
  const postings: GrowingPostings = new Map();
  const vectors = counts.map((c) => {
    const vector: [string, number][] = [];
    let norm = 0;
    for (const [term, tf] of c) {
      const d = df.get(term)!;
      if (d > common) continue;
      const w = (1 + Math.log(tf)) * Math.log(1 + n / d);
      vector.push([term, w]);
      norm += w * w;
    }
    norm = Math.sqrt(norm) || 1;
    return vector.map(([term, w]) => [term, w / norm] as const);
  });
  vectors.forEach((vector, doc) => {
    for (const [term, w] of vector) addPosting(postings, term, doc, w);
  });

  // Each pair is kept as one number that sorts in output order (score descending, then a, then
  // b by id) so that a catalog's ~170,000 pairs at --min 0 are sorted natively, not by a
  // comparator over objects; the objects are made once, in order.
  const rank = idRanks(skills);
  const keys: number[] = [];
  const dots = new Float64Array(n);
  const touched: number[] = [];
  vectors.forEach((vector, i) => {
    for (const [term, wi] of vector) {
      const { docs, weights } = postings.get(term)!;
      // Postings are in doc order: only later docs, so each pair is met once.
      for (let k = docs.length - 1; k >= 0 && docs[k]! > i; k--) {
        const j = docs[k]!;
        if (dots[j] === 0) touched.push(j);
        dots[j] = dots[j]! + wi * weights[k]!;
      }
    }
    for (const j of touched) {
      const milli = Math.min(1000, Math.round(dots[j]! * 1000));
      dots[j] = 0;
      if (milli <= 0 || milli / 1000 < min || rank[i] === rank[j]) continue;
      const ri = rank[i]!;
      const rj = rank[j]!;
      keys.push(((1000 - milli) * n + Math.min(ri, rj)) * n + Math.max(ri, rj));
    }
    touched.length = 0;
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
  return pairs;
}

/** Each skill's place among the distinct ids in code-unit order; the same id, the same place. */
function idRanks(skills: readonly OverlapInput[]): number[] {
  const ids = [...new Set(skills.map((s) => s.id))].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
  const place = new Map(ids.map((id, r) => [id, r]));
  return skills.map((s) => place.get(s.id)!);
}

/**
 * `competing-skills` warnings for `validate`: one on each file of a pair at or above the
 * threshold, naming the other skill and its source, at the description where `locate` knows it.
 */
export function competingWarnings(
  candidates: readonly Candidate[],
  locate: (path: string) => Diagnostic["position"] | undefined = () => undefined,
): Diagnostic[] {
  const byId = new Map(candidates.map((c) => [c.skill.id, c]));
  const out: Diagnostic[] = [];
  for (const { a, b, score } of overlapPairs([...byId.values()].map(overlapInput), COMPETING_THRESHOLD)) {
    for (const [self, other] of [
      [byId.get(a)!, byId.get(b)!],
      [byId.get(b)!, byId.get(a)!],
    ] as const) {
      const position = locate(self.path);
      out.push({
        severity: "warning",
        code: "competing-skills",
        file: self.path,
        ...(position && { position }),
        message: `"${self.skill.id}" may compete with "${other.skill.id}" (${other.source}) for the same requests: overlap score ${score}, at or above ${COMPETING_THRESHOLD}`,
        hint: "make each description say what sets it apart and when to use it, or merge the two",
      });
    }
  }
  return out;
}
