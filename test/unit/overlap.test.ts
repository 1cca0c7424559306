import { expect, test } from "bun:test";
import { join } from "node:path";
import { COMPETING_THRESHOLD, overlapPairs, type OverlapInput } from "../../src/registry/overlap.ts";
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
