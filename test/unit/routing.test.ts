/**
 * The routing proxy (src/registry/routing.ts): each trigger query ranked with the server's own
 * search over the whole catalog, recall@1 and @3 over should-trigger queries, false fires on
 * should-not queries, who won instead, and a skill a model may not use reported as unreachable.
 */
import { describe, expect, test } from "bun:test";
import type { Candidate, LayerRef } from "../../src/registry/registry.ts";
import { NO_WINNER, routeTriggerSets } from "../../src/registry/routing.ts";
import { buildSearchIndex, searchSkills } from "../../src/registry/search.ts";
import type { Skill } from "../../src/skill/skill.ts";
import { promptCandidate } from "../helpers/candidate.ts";

const LAYER: LayerRef = { name: "team", priority: 50, order: 1 };
const candidate = (id: string, fields: Partial<Skill> & { description: string }): Candidate =>
  promptCandidate(id, LAYER, fields, { path: `/skills/${id}.yaml` });

const SKILLS = [
  candidate("review-pr", { description: "Review a pull request for correctness", tags: ["review", "git"] }),
  candidate("security-review", { description: "Find vulnerabilities in a change", tags: ["security", "review"] }),
  candidate("k8s-manifests", { description: "Check Kubernetes manifests for probes and limits", tags: ["infra"] }),
  candidate("deploy", { description: "Deploy the service to production", modelInvocable: false }),
].sort((a, b) => (a.skill.id < b.skill.id ? -1 : 1));
const index = buildSearchIndex(SKILLS);
const modelMayUse = (c: Candidate) => c.skill.modelInvocable !== false;

describe("routing trigger sets", () => {
  test("recall@1 and @3 count the should-trigger queries ranked first and within the first three", () => {
    const [r] = routeTriggerSets(
      index,
      new Map([
        [
          "review-pr",
          [
            { query: "review my pull request", should_trigger: true },
            { query: "review this change for vulnerabilities", should_trigger: true },
            { query: "paint the kitchen", should_trigger: true },
            { query: "check kubernetes probes", should_trigger: false },
          ],
        ],
      ]),
      modelMayUse,
    );
    expect(r!.positives).toBe(3);
    expect(r!.negatives).toBe(1);
    expect(r!.queries.map((q) => [q.rank, q.winner])).toEqual([
      [1, "review-pr"],
      [2, "security-review"],
      [null, null],
      [null, "k8s-manifests"],
    ]);
    expect(r!.recallAt1).toBeCloseTo(1 / 3);
    expect(r!.recallAt3).toBeCloseTo(2 / 3);
    expect(r!.falseFires).toBe(0);
    expect(r!.wonInstead).toEqual({ "security-review": 1, [NO_WINNER]: 1 });
  });

  test("a should-not query the skill ranks first is a false fire", () => {
    const [r] = routeTriggerSets(
      index,
      new Map([["k8s-manifests", [{ query: "kubernetes manifests limits", should_trigger: false }]]]),
      modelMayUse,
    );
    expect(r!.falseFires).toBe(1);
    expect(r!.recallAt1).toBeNull();
    expect(r!.recallAt3).toBeNull();
  });

  test("ranks agree with searchSkills, the search behind find_skills: no second ranker", () => {
    const query = "review a change";
    const [r] = routeTriggerSets(index, new Map([["security-review", [{ query, should_trigger: true }]]]), modelMayUse);
    const hits = searchSkills(index, { query, filter: modelMayUse, limit: 3 }).hits.map((h) => h.candidate.skill.id);
    expect(r!.queries[0]!.winner).toBe(hits[0]!);
    expect(r!.queries[0]!.rank).toBe(hits.indexOf("security-review") + 1);
  });

  test("a skill a model may not use is searched for nowhere: unreachable, every query a miss", () => {
    const [r] = routeTriggerSets(
      index,
      new Map([["deploy", [{ query: "deploy the service to production", should_trigger: true }]]]),
      modelMayUse,
    );
    expect(r!.reachable).toBe(false);
    expect(r!.recallAt3).toBe(0);
  });

  test("results come sorted by skill id, whatever order the sets were given in", () => {
    const one = [{ query: "review", should_trigger: true }];
    const results = routeTriggerSets(
      index,
      new Map([
        ["security-review", one],
        ["k8s-manifests", one],
        ["review-pr", one],
      ]),
      modelMayUse,
    );
    expect(results.map((r) => r.skill)).toEqual(["k8s-manifests", "review-pr", "security-review"]);
  });

  test("a query ranks the same however many searches came before (expansions are remembered per index, bounded)", () => {
    const ids = (i: typeof index, query: string) =>
      searchSkills(i, { query, limit: 3 }).hits.map((h) => [h.candidate.skill.id, h.score]);
    const query = "reveiw kubernets manifests";
    const fresh = ids(buildSearchIndex(SKILLS), query);
    const reused = buildSearchIndex(SKILLS);
    ids(reused, query);
    // More distinct terms than the memo keeps: it is emptied and filled again, never wrong.
    for (let i = 0; i < 5000; i++) ids(reused, `term${i} revi`);
    expect(ids(reused, query)).toEqual(fresh);
    // Another index with other skills: its own expansions, not the first index's.
    const other = buildSearchIndex(SKILLS.filter((c) => c.skill.id !== "review-pr"));
    expect(ids(other, query).map(([id]) => id)).not.toContain("review-pr");
    expect(fresh.length).toBeGreaterThan(0);
  });
});
