/**
 * The routing proxy of `skill-central eval`: each trigger query ranked against the whole served
 * catalog with the server's own search (search.ts, the one behind `find_skills`), over one index
 * built once. It measures whether a skill's name, tags and description win the query over every
 * other skill's: a proxy for a model's choice, not the choice itself (docs/eval.md).
 */
import type { RoutingFigures } from "../storage/eval-results.ts";
import type { Candidate } from "./registry.ts";
import { type SearchIndex, searchSkills } from "./search.ts";

/** A query is a hit at rank 1 or within the first 3, as a model reading `find_skills` results would see it. */
const TOP = 3;

export interface RoutingQuery {
  query: string;
  should_trigger: boolean;
}

/** One query's outcome: where the skill ranked (1-based; null past the top 3 or not at all) and who ranked first. */
export interface RoutedQuery extends RoutingQuery {
  rank: number | null;
  /** The skill ranked first, or null when nothing matched the query. */
  winner: string | null;
}

/** A skill's routing: its figures (unreachable: every query a miss), and each query's rank and winner. */
export interface SkillRouting extends RoutingFigures {
  skill: string;
  queries: RoutedQuery[];
}

export const NO_WINNER = "(none)";

/** Routes each skill's trigger set through `index`, searching only the skills `filter` admits (as find_skills does). */
export function routeTriggerSets(
  index: SearchIndex,
  sets: ReadonlyMap<string, readonly RoutingQuery[]>,
  filter: (candidate: Candidate) => boolean,
): SkillRouting[] {
  const reachable = new Set(index.candidates.filter(filter).map((c) => c.skill.id));
  const out: SkillRouting[] = [];
  for (const [skill, items] of [...sets].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const queries = items.map((item): RoutedQuery => {
      const hits = searchSkills(index, { query: item.query, filter, limit: TOP }).hits;
      const at = hits.findIndex((h) => h.candidate.skill.id === skill);
      return { ...item, rank: at < 0 ? null : at + 1, winner: hits[0]?.candidate.skill.id ?? null };
    });
    const positive = queries.filter((q) => q.should_trigger);
    const share = (n: number) => (positive.length === 0 ? null : n / positive.length);
    const wonInstead: Record<string, number> = {};
    for (const q of positive)
      if (q.rank !== 1) {
        const key = q.winner ?? NO_WINNER;
        wonInstead[key] = (wonInstead[key] ?? 0) + 1;
      }
    out.push({
      skill,
      reachable: reachable.has(skill),
      positives: positive.length,
      negatives: queries.length - positive.length,
      recallAt1: share(positive.filter((q) => q.rank === 1).length),
      recallAt3: share(positive.filter((q) => q.rank !== null).length),
      falseFires: queries.filter((q) => !q.should_trigger && q.rank === 1).length,
      wonInstead,
      queries,
    });
  }
  return out;
}
