/**
 * Full-text search over the served skills: BM25F (each field weighted and length-normalised on
 * its own, then saturated once per term), over the id, title, tags, description and the body's
 * headings. Built once per registry snapshot, on first use; a query is then a few posting-list
 * walks, whatever the number of skills. Shared by the catalog tools and `skill-central find`.
 */
import { perSnapshot } from "./per-snapshot.ts";
import type { Candidate, Registry } from "./registry.ts";
import { addPosting, type GrowingPostings, terms } from "./search-terms.ts";
import { relatedTerms } from "./vocabulary.ts";
import { skillUri } from "../skill/skill-uri.ts";
import { editDistance } from "../suggest.ts";

interface FieldSpec {
  weight: number;
  /** Length normalisation: 0 ignores the field's length, 1 divides by it fully. */
  b: number;
  text(candidate: Candidate): string;
}

/** What a skill is called outweighs what it says; a long description is normalised harder than a name. */
const FIELDS: readonly FieldSpec[] = [
  { weight: 4.0, b: 0.3, text: (c) => c.skill.id },
  { weight: 3.0, b: 0.3, text: (c) => c.skill.title ?? "" },
  { weight: 2.5, b: 0.3, text: (c) => c.skill.tags.join(" ") },
  { weight: 1.5, b: 0.75, text: (c) => c.skill.description },
  { weight: 1.0, b: 0.6, text: (c) => (c.skill.headings ?? []).join("\n") },
];

const K1 = 1.2;
/** A word the query only implies (a related word, a longer word it starts, a likely typo) counts for less. */
const RELATED_WEIGHT = 0.6;
const PREFIX_WEIGHT = 0.5;
const TYPO_WEIGHT = 0.6;
const MAX_PREFIX_EXPANSIONS = 12;
const MAX_TYPO_EXPANSIONS = 4;
/** The query names a skill exactly: it comes first, whatever else matches. */
const EXACT_ID_BONUS = 1000;
/** A query is read up to here: far past what anyone asks, short of what a careless client sends. */
export const MAX_QUERY_CHARS = 1000;

interface Postings {
  docs: Uint32Array;
  /** Per doc: the saturated BM25F term weight, tf~ / (k1 + tf~); a query multiplies it by idf. */
  weights: Float32Array;
}

export interface SearchIndex {
  /** Every served skill, sorted by id (the alphabetical order of a query-less search). */
  readonly candidates: readonly Candidate[];
  readonly postings: ReadonlyMap<string, Postings>;
  /** Every term, sorted: prefix expansion is a binary search. */
  readonly vocabulary: readonly string[];
}

/** Builds the index of a list of skills (in practice `registry.served()`). */
export function buildSearchIndex(candidates: readonly Candidate[]): SearchIndex {
  const fieldTerms = candidates.map((c) => FIELDS.map((f) => terms(f.text(c))));
  const averages = FIELDS.map((_, f) =>
    Math.max(1, fieldTerms.reduce((sum, fields) => sum + fields[f]!.length, 0) / Math.max(1, candidates.length)),
  );
  const growing: GrowingPostings = new Map();
  fieldTerms.forEach((fields, doc) => {
    const tilde = new Map<string, number>();
    fields.forEach((list, f) => {
      if (list.length === 0) return;
      const { weight, b } = FIELDS[f]!;
      const norm = 1 - b + (b * list.length) / averages[f]!;
      for (const term of list) tilde.set(term, (tilde.get(term) ?? 0) + weight / norm);
    });
    for (const [term, tf] of tilde) addPosting(growing, term, doc, tf / (K1 + tf));
  });
  const postings = new Map<string, Postings>();
  for (const [term, { docs, weights }] of growing)
    postings.set(term, { docs: Uint32Array.from(docs), weights: Float32Array.from(weights) });
  return { candidates, postings, vocabulary: [...postings.keys()].sort() };
}

/** The index of a snapshot's served skills, built on the first search and kept with the snapshot. */
export const searchIndexOf = perSnapshot((registry: Registry) => buildSearchIndex(registry.served()));

export interface SearchOptions {
  /** Free text; empty or absent lists every match alphabetically. */
  query?: string;
  /** Normalised tags a skill must all carry. */
  tags?: readonly string[];
  /** Which skills may be returned at all (e.g. only those a model may invoke). */
  filter?: (candidate: Candidate) => boolean;
  /** At most this many hits (default 10). */
  limit?: number;
  /** Only hits ranking after this one (the last of a page already given): the next page. */
  after?: RankKey;
}

/** Where a hit ranks: its score, then its id (a page's last hit, for the next page). */
export interface RankKey {
  score: number;
  id: string;
}

export interface SearchHit {
  candidate: Candidate;
  /** Relevance; 0 for a query-less listing. Comparable within one search only. */
  score: number;
}

/** A match as `find_skills` and `skill-central find` show it. */
export interface FoundSkill {
  name: string;
  title?: string;
  description: string;
  tags: string[];
  type: "prompt" | "tool";
  layer: string;
  uri: string;
}

export function foundSkill({ skill, layer }: Candidate): FoundSkill {
  return {
    name: skill.id,
    ...(skill.title !== undefined && { title: skill.title }),
    description: skill.description,
    tags: [...skill.tags],
    type: skill.type,
    layer: layer.name,
    uri: skillUri(skill.id),
  };
}

export interface SearchResult {
  hits: SearchHit[];
  /** How many skills matched in all, before `limit` and `after`. */
  total: number;
  /** With `after`: how many of them rank after it, before `limit`. */
  following?: number;
}

/** First index in the sorted vocabulary whose term is >= `prefix`. */
function lowerBound(vocabulary: readonly string[], prefix: string): number {
  let lo = 0;
  let hi = vocabulary.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (vocabulary[mid]! < prefix) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Expansions kept per index: a term's typo scan is the dearest part of a query, and terms recur. */
const EXPANSIONS_KEPT = 4096;
const expansionsOf = new WeakMap<SearchIndex, Map<string, ReadonlyMap<string, number>>>();

/** `expand`, remembered per index (bounded: the memo is emptied when full, so a server's is never unbounded). */
function expanded(index: SearchIndex, term: string): ReadonlyMap<string, number> {
  let memo = expansionsOf.get(index);
  if (memo === undefined) {
    memo = new Map();
    expansionsOf.set(index, memo);
  }
  let out = memo.get(term);
  if (out === undefined) {
    if (memo.size >= EXPANSIONS_KEPT) memo.clear();
    out = expand(index, term);
    memo.set(term, out);
  }
  return out;
}

/**
 * The terms a query term stands for, each with its weight: itself; its related words; longer
 * words it begins (`document` → `documentation`); and, when none of those exist, the nearest
 * spellings (a typo).
 */
function expand(index: SearchIndex, term: string): Map<string, number> {
  const out = new Map<string, number>();
  const add = (t: string, w: number) => {
    if (index.postings.has(t) && (out.get(t) ?? 0) < w) out.set(t, w);
  };
  add(term, 1);
  for (const related of relatedTerms(term)) add(related, RELATED_WEIGHT);
  if (term.length >= 3) {
    let added = 0;
    for (
      let i = lowerBound(index.vocabulary, term);
      i < index.vocabulary.length && added < MAX_PREFIX_EXPANSIONS;
      i++
    ) {
      const candidate = index.vocabulary[i]!;
      if (!candidate.startsWith(term)) break;
      if (candidate === term) continue;
      // The closer in length, the more likely the same word.
      add(candidate, PREFIX_WEIGHT * (term.length / candidate.length));
      added++;
    }
  }
  if (out.size === 0 && term.length >= 4) {
    // Levenshtein (a swap is two edits), as search has always counted typos.
    const distance = { limit: term.length >= 8 ? 2 : 1, swaps: false };
    const near: { t: string; d: number }[] = [];
    // Typos rarely touch the first letter: only terms starting with it are compared.
    const first = term[0]!;
    for (
      let i = lowerBound(index.vocabulary, first);
      i < index.vocabulary.length && index.vocabulary[i]![0] === first;
      i++
    ) {
      const candidate = index.vocabulary[i]!;
      const d = editDistance(term, candidate, distance);
      if (d > 0 && d <= distance.limit) near.push({ t: candidate, d });
    }
    near.sort((a, b) => a.d - b.d || (a.t < b.t ? -1 : 1));
    for (const { t, d } of near.slice(0, MAX_TYPO_EXPANSIONS)) add(t, TYPO_WEIGHT / d);
  }
  return out;
}

/** Query terms, plus each adjacent pair written as one word ("post mortem" → "postmortem"). */
function queryTerms(query: string): string[] {
  const list = terms(query);
  const words = query
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== "");
  for (let i = 0; i + 1 < words.length; i++) for (const term of terms(words[i]! + words[i + 1]!)) list.push(term);
  return [...new Set(list)];
}

function byId(a: Candidate, b: Candidate): number {
  return a.skill.id < b.skill.id ? -1 : a.skill.id > b.skill.id ? 1 : 0;
}

function ranksBefore(a: SearchHit, b: SearchHit): boolean {
  return a.score > b.score || (a.score === b.score && byId(a.candidate, b.candidate) < 0);
}

function ranksAfter(hit: SearchHit, key: RankKey): boolean {
  const id = hit.candidate.skill.id;
  return hit.score < key.score || (hit.score === key.score && id > key.id);
}

/** The `limit` best hits, best first, without sorting the thousands a common word matches. */
function best(hits: readonly SearchHit[], limit: number): SearchHit[] {
  const top: SearchHit[] = [];
  for (const hit of hits) {
    if (top.length === limit && (limit === 0 || !ranksBefore(hit, top[top.length - 1]!))) continue;
    let at = top.length;
    while (at > 0 && ranksBefore(hit, top[at - 1]!)) at--;
    top.splice(at, 0, hit);
    if (top.length > limit) top.pop();
  }
  return top;
}

/**
 * Ranked matches for `options.query` (ties by id), or every allowed skill by id when there is no
 * query. A skill matches when any query term, or a word it stands for, is in one of its fields.
 */
export function searchSkills(index: SearchIndex, options: SearchOptions = {}): SearchResult {
  const limit = Math.max(0, options.limit ?? 10);
  const tags = options.tags ?? [];
  const allowed = (c: Candidate) =>
    (options.filter ? options.filter(c) : true) && tags.every((t) => c.skill.tags.includes(t));
  const query = (options.query ?? "").slice(0, MAX_QUERY_CHARS).trim();
  // Coverage counts the words the person typed, once each, wherever (and however) they matched.
  const typed = new Set(terms(query, { joined: false }));
  const after = options.after;
  if (typed.size === 0) {
    const all = index.candidates.filter(allowed);
    const rest = after === undefined ? all : all.filter((c) => ranksAfter({ candidate: c, score: 0 }, after));
    return {
      hits: rest.slice(0, limit).map((candidate) => ({ candidate, score: 0 })),
      total: all.length,
      ...(after !== undefined && { following: rest.length }),
    };
  }

  const qTerms = queryTerms(query);
  const n = index.candidates.length;
  const scores = new Float64Array(n);
  const matched = new Uint16Array(n);
  const touched: number[] = [];
  for (const term of qTerms) {
    const expansions = expanded(index, term);
    const seen = typed.has(term) ? new Set<number>() : undefined;
    for (const [t, weight] of expansions) {
      const { docs, weights } = index.postings.get(t)!;
      const idf = Math.log(1 + (n - docs.length + 0.5) / (docs.length + 0.5));
      for (let i = 0; i < docs.length; i++) {
        const doc = docs[i]!;
        if (scores[doc] === 0) touched.push(doc);
        scores[doc] = scores[doc]! + weight * idf * weights[i]!;
        seen?.add(doc);
      }
    }
    if (seen) for (const doc of seen) matched[doc] = matched[doc]! + 1;
  }

  const wanted = Math.max(1, typed.size);
  const exactId = query.toLowerCase().replace(/[\s_]+/g, "-");
  const hits: SearchHit[] = [];
  let total = 0;
  for (const doc of touched) {
    const candidate = index.candidates[doc]!;
    if (!allowed(candidate)) continue;
    // Skills that match more of what was asked for rank above those matching one word strongly.
    let score = scores[doc]! * (0.5 + (0.5 * Math.min(matched[doc]!, wanted)) / wanted);
    if (candidate.skill.id === exactId) score += EXACT_ID_BONUS;
    total++;
    const hit = { candidate, score };
    if (after === undefined || ranksAfter(hit, after)) hits.push(hit);
  }
  return { hits: best(hits, limit), total, ...(after !== undefined && { following: hits.length }) };
}
