import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import {
  COMPETING_THRESHOLD,
  competingWarnings,
  findOverlap,
  overlapPairs,
  type OverlapInput,
} from "../../src/registry/overlap.ts";
import { EXACT_WORK, PER_SKILL } from "../../src/registry/overlap-search.ts";
import { lookalikeSkills } from "../helpers/lookalike-skills.ts";
import { promptCandidate } from "../helpers/candidate.ts";
import { vagueDescription } from "../../src/skill/description-quality.ts";
import { REPO_ROOT } from "../helpers/server.ts";

interface Labelled {
  skills: OverlapInput[];
  competing: [string, string][];
}

const labelled: Labelled = await Bun.file(join(REPO_ROOT, "test/fixtures/competing-skills.json")).json();
const key = (a: string, b: string) => [a, b].sort().join(" | ");

test("the labelled competing pairs are found in the top N (N = the number of labelled pairs): share >= 0.8", () => {
  const wanted = new Set(labelled.competing.map(([a, b]) => key(a, b)));
  expect(labelled.skills.length).toBeGreaterThanOrEqual(20);
  expect(wanted.size).toBeGreaterThanOrEqual(10);
  const top = overlapPairs(labelled.skills).slice(0, wanted.size);
  const share = top.filter((p) => wanted.has(key(p.a, p.b))).length / wanted.size;
  // Measured: 10 of 11 (0.909). Printed so that a change of the scoring shows its effect.
  console.log(`overlap: ${(share * 100).toFixed(1)}% of labelled competing pairs in the top ${wanted.size}`);
  expect(share).toBeGreaterThanOrEqual(0.8);
});

test("no unlabelled pair of the labelled catalog reaches the validate threshold", () => {
  const wanted = new Set(labelled.competing.map(([a, b]) => key(a, b)));
  const above = overlapPairs(labelled.skills, COMPETING_THRESHOLD).filter((p) => !wanted.has(key(p.a, p.b)));
  expect(above).toEqual([]);
});

test("pairs: scores in [0, 1], highest first, a before b, each pair once; --min filters", () => {
  const pairs = overlapPairs(labelled.skills);
  for (const p of pairs) {
    expect(p.score).toBeGreaterThan(0);
    expect(p.score).toBeLessThanOrEqual(1);
    expect(p.a < p.b).toBe(true);
  }
  for (let i = 1; i < pairs.length; i++) expect(pairs[i - 1]!.score).toBeGreaterThanOrEqual(pairs[i]!.score);
  expect(new Set(pairs.map((p) => key(p.a, p.b))).size).toBe(pairs.length);
  const min = overlapPairs(labelled.skills, 0.4);
  expect(min.length).toBeGreaterThan(0);
  expect(min.every((p) => p.score >= 0.4)).toBe(true);
  expect(min).toEqual(pairs.filter((p) => p.score >= 0.4));
});

test("synonyms meet: sql / query / database share a term, so these two compete; without a shared word, no pair", () => {
  const skills = [
    { id: "sql-helper", description: "Help with SQL", tags: [] },
    { id: "db-questions", description: "Answer database questions", tags: [] },
    { id: "paint-walls", description: "Choose paint colours", tags: [] },
  ];
  const pairs = overlapPairs(skills);
  expect(pairs.map((p) => key(p.a, p.b))).toEqual([key("db-questions", "sql-helper")]);
  // The same texts under another name: a strong pair.
  expect(overlapPairs([skills[0]!, { ...skills[0]!, id: "sql-helper-2" }])[0]!.score).toBeGreaterThan(0.6);
});

test("a catalog of 1,000 skills is scored (only pairs sharing a term are compared)", () => {
  const words = ["alpha", "beta", "gamma", "delta", "omega", "sigma", "kappa", "lambda", "theta", "zeta"];
  const skills = Array.from({ length: 1000 }, (_, i) => ({
    id: `skill-${i}`,
    description: `Handle the ${words[i % 10]} ${words[(i * 7) % 10]} task number ${i}`,
    tags: [words[(i * 3) % 10]!],
  }));
  const pairs = overlapPairs(skills);
  // skill-0 and skill-10 share both description words and the tag; skill-0 and skill-1 share nothing.
  expect(pairs.some((p) => p.a === "skill-0" && p.b === "skill-10")).toBe(true);
  expect(pairs.some((p) => p.a === "skill-0" && p.b === "skill-1")).toBe(false);
});

test("vague descriptions: fewer than 5 words; the built-in skills' descriptions are not vague", async () => {
  expect(vagueDescription("sql", "SQL stuff")).toContain("2 words");
  expect(vagueDescription("h", "Helper")).toContain("1 word");
  expect(vagueDescription("review-pr", "Review pull requests against team conventions")).toBeUndefined();
});

describe("look-alike catalogs: what is kept and the work done are bounded (issue 46)", () => {
  test("1,000 look-alikes (every pair of a family competes): each skill keeps its 10 strongest and counts the rest exactly", () => {
    const skills = lookalikeSkills(1000);
    const found = findOverlap(skills, COMPETING_THRESHOLD);
    expect(found.exact).toBe(true);
    // Counted, not listed: every pair of each family of 500 reaches the threshold.
    expect(found.total).toBeGreaterThan(200_000);
    for (const { top, count } of found.perSkill) {
      expect(top.length).toBe(PER_SKILL);
      expect(count).toBeGreaterThanOrEqual(top.length);
    }
    expect(found.perSkill.reduce((sum, s) => sum + s.count, 0)).toBe(2 * found.total);
    // Each pair once, at most PER_SKILL per skill.
    expect(found.pairs.length).toBeLessThanOrEqual(skills.length * PER_SKILL);
    expect(new Set(found.pairs.map((p) => key(p.a, p.b))).size).toBe(found.pairs.length);
    for (let i = 1; i < found.pairs.length; i++)
      expect(found.pairs[i - 1]!.score).toBeGreaterThanOrEqual(found.pairs[i]!.score);
  });

  test("a skill's top list is its strongest competitors, as the full pair list orders them", () => {
    const skills = lookalikeSkills(60);
    const found = findOverlap(skills, 0);
    const all = new Map<string, { other: string; score: number }[]>();
    // Every pair, by brute force: the cosine over the same vectors, from a catalog small enough to list.
    for (const p of found.pairs) {
      all.set(p.a, [...(all.get(p.a) ?? []), { other: p.b, score: p.score }]);
      all.set(p.b, [...(all.get(p.b) ?? []), { other: p.a, score: p.score }]);
    }
    found.perSkill.forEach(({ top }, i) => {
      const mine = (all.get(skills[i]!.id) ?? []).sort((x, y) => y.score - x.score || (x.other < y.other ? -1 : 1));
      expect(top.map((t) => ({ other: skills[t.other]!.id, score: t.score }))).toEqual(mine.slice(0, PER_SKILL));
    });
  });

  test("1,200 look-alikes at --min 0 (every pair sharing a word: 407,970) finish, keeping at most 10 pairs a skill", () => {
    const found = findOverlap(lookalikeSkills(1200), 0);
    expect(found.exact).toBe(true);
    expect(found.total).toBe(407_970);
    expect(found.pairs.length).toBeLessThanOrEqual(1200 * PER_SKILL);
  }, 60_000);

  test("past EXACT_WORK the search is bounded: 10,000 look-alikes keep 10 a skill and say the count is a lower bound", () => {
    const skills = lookalikeSkills(10_000);
    const found = findOverlap(skills, COMPETING_THRESHOLD);
    expect(found.exact).toBe(false);
    for (const { top, count } of found.perSkill) {
      expect(top.length).toBe(PER_SKILL);
      // Each family's others all score 1 or near it: the strongest found are from the skill's own family.
      expect(count).toBeGreaterThanOrEqual(PER_SKILL);
    }
    expect(found.pairs.length).toBeLessThanOrEqual(skills.length * PER_SKILL);
    expect(found.total).toBeGreaterThanOrEqual(found.pairs.length);
  }, 120_000);

  test("a catalog under EXACT_WORK is searched exactly: the bound never changes a normal catalog's pairs", () => {
    expect(findOverlap(labelled.skills, 0).exact).toBe(true);
    expect(EXACT_WORK).toBeGreaterThanOrEqual(10_000_000);
  });
});

describe("competing-skills warnings are capped per file (docs/limits.md: 10 of a kind, the rest counted)", () => {
  const layer = { name: "project", priority: 0, order: 0 };
  const candidates = (n: number) =>
    lookalikeSkills(n).map((s) =>
      promptCandidate(
        s.id,
        layer,
        { description: s.description, tags: s.tags, title: s.title },
        { path: `skills/${s.id}.yaml` },
      ),
    );

  test("1,000 look-alikes: at most 10 warnings per file and one line counting the rest", () => {
    const all = candidates(1000);
    const warnings = competingWarnings(all);
    const counts = findOverlap(
      all.map((c) => c.skill),
      COMPETING_THRESHOLD,
    ).perSkill.map((s) => s.count);
    const byFile = Map.groupBy(warnings, (w) => w.file!);
    expect(byFile.size).toBe(1000);
    all.forEach((c, i) => {
      const found = byFile.get(c.path)!;
      expect(found.length).toBe(PER_SKILL + 1);
      for (const w of found.slice(0, PER_SKILL)) expect(w.message).toStartWith(`"${c.skill.id}" may compete with "`);
      expect(found.at(-1)!.message).toBe(
        `…and ${counts[i]! - PER_SKILL} more skills compete with "${c.skill.id}" at or above 0.3, not listed (${counts[i]} in all; the strongest 10 are above)`,
      );
      expect(counts[i]).toBeGreaterThan(100);
    });
  });

  test("a file with 10 competitors or fewer has no count line", () => {
    const warnings = competingWarnings(candidates(12));
    expect(warnings.length).toBeGreaterThan(0);
    expect(warnings.some((w) => w.message.startsWith("…and"))).toBe(false);
    for (const found of Map.groupBy(warnings, (w) => w.file!).values()) expect(found.length).toBeLessThanOrEqual(10);
  });
});
