import { describe, expect, test } from "bun:test";
import { findOverlap } from "../../src/registry/overlap.ts";
import { terms } from "../../src/registry/search-terms.ts";
import { foldedTerm, relatedTerms, VOCABULARY_GROUPS } from "../../src/registry/vocabulary.ts";

/** The single-word members, stemmed, by group. */
const words = VOCABULARY_GROUPS.map((group) =>
  group.map((member) => terms(member, { joined: false })).flatMap((t) => (t.length === 1 ? t : [])),
);

describe("the team vocabulary: one table, read by search and by the overlap score", () => {
  test("each word is in one group, and each group is led by a word (what its synonyms fold to)", () => {
    const seen = new Map<string, number>();
    words.forEach((group, i) => {
      for (const word of new Set(group)) {
        expect(`${word} in group ${seen.get(word) ?? i}`).toBe(`${word} in group ${i}`);
        seen.set(word, i);
      }
    });
    for (const group of VOCABULARY_GROUPS) expect(terms(group[0]!, { joined: false })).toHaveLength(1);
  });

  test("written one way, found both ways: a word finds each other word of its group, and is found by it", () => {
    for (const group of words)
      for (const a of group)
        for (const b of group) {
          if (a === b) continue;
          expect(relatedTerms(a)).toContain(b);
          expect(foldedTerm(a)).toBe(foldedTerm(b));
        }
  });

  test("a phrase is found, never looked up: pr finds pull request; request finds nothing", () => {
    expect(relatedTerms("pr")).toEqual(expect.arrayContaining(["pull", "request"]));
    expect(relatedTerms("request")).toEqual([]);
    expect(foldedTerm("request")).toBe("request");
  });

  test("search and overlap agree on sql and db (the two tables did not)", () => {
    for (const word of ["sql", "db", "database", "query"]) {
      const [term] = terms(word);
      expect(relatedTerms(term!).length).toBeGreaterThan(0);
      expect(foldedTerm(term!)).toBe("sql");
    }
    expect(relatedTerms("sql")).toEqual(expect.arrayContaining(["db", "databas"]));
    const skills = [
      { id: "db", description: "db", tags: [] },
      { id: "sql", description: "sql", tags: [] },
    ];
    expect(findOverlap(skills).pairs.map((p) => p.score)).toEqual([1]);
  });
});
