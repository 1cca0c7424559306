/**
 * The team vocabulary: words a team uses for one thing, in one table read two ways. Search reads
 * it as related words (a query word also looks for the others in its group, at a lower weight:
 * "k8s" finds "Kubernetes", "pr" finds "pull request"); the overlap score reads it as synonyms
 * (each word folds to its group's first word, so "SQL query helper" and "database questions"
 * share a term). One table, so the two never disagree about what means the same; written once
 * per group, so "a finds b" and "b finds a" cannot drift apart.
 *
 * A member may be a phrase ("pull request"): a query word finds its words, but a query is looked
 * up word by word and the score folds term by term, so a phrase is only ever found, never looked
 * up or folded. Each word is in one group (test/unit/vocabulary.test.ts); words are stemmed once,
 * as `terms` does.
 */
import { terms } from "./search-terms.ts";

/** Exported for the test that keeps each word in one group and each group led by a word. */
export const VOCABULARY_GROUPS: readonly (readonly string[])[] = [
  ["sql", "query", "database", "db", "postgres", "mysql"],
  // Not "check": a license check, a health check, "check my change" are no tests.
  ["test", "spec", "unit", "verify"],
  ["review", "audit", "critique", "inspect"],
  ["deploy", "release", "ship", "rollout"],
  ["doc", "docs", "documentation", "readme", "document"],
  ["bug", "debug", "defect", "troubleshoot", "diagnose"],
  ["incident", "outage", "postmortem", "retrospective", "retro"],
  ["commit", "git"],
  ["pr", "pull", "merge", "mr", "pull request", "merge request"],
  ["refactor", "restructure", "cleanup"],
  ["security", "vulnerability", "vuln", "secure"],
  ["performance", "perf", "latency", "slow", "optimize", "optimise"],
  ["write", "draft", "author", "compose"],
  ["explain", "summarize", "summarise", "describe"],
  ["kubernetes", "k8s"],
  ["javascript", "js"],
  ["typescript", "ts"],
  ["python", "py"],
  ["auth", "authentication", "authorization", "login"],
  ["repository", "repo"],
  ["configuration", "config"],
  ["environment", "env"],
  ["dependency", "deps"],
  ["pipeline", "ci"],
  ["adr", "architecture decision"],
  ["changelog", "release notes"],
  ["frontend", "ui", "interface"],
  ["backend", "server"],
];

/** Each member's terms: a word's one stem, a phrase's several. */
const stemmed = VOCABULARY_GROUPS.map((group) => group.map((member) => terms(member, { joined: false })));

/** A word's stem → its group's first word's stem. */
const FOLDED = new Map<string, string>(
  stemmed.flatMap((group) => group.filter((t) => t.length === 1).map(([t]) => [t!, group[0]![0]!] as const)),
);

/** A word's stem → the terms of the rest of its group (each once). */
const RELATED = new Map<string, readonly string[]>(
  stemmed.flatMap((group) =>
    group
      .filter((t) => t.length === 1)
      .map(([t]) => [t!, [...new Set(group.flat())].filter((other) => other !== t)] as const),
  ),
);

/** The terms a query term also looks for (search.ts). */
export function relatedTerms(term: string): readonly string[] {
  return RELATED.get(term) ?? [];
}

/** The one term a word and its synonyms fold to (overlap.ts). */
export function foldedTerm(term: string): string {
  return FOLDED.get(term) ?? term;
}
