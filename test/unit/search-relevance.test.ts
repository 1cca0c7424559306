import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { modelMayUse } from "../../src/invoke/load-skill.ts";
import { loadSkills } from "../../src/load/load-skills.ts";
import type { Registry } from "../../src/registry/registry.ts";
import { searchIndexOf, searchSkills } from "../../src/registry/search.ts";
import { CATALOG_SKILL_IDS, catalogFixtureFiles } from "../helpers/catalog-fixture.ts";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";

/**
 * The relevance set: what a model (or a person) types, and the skill that must come first. The
 * fixture has near-miss neighbours for most of them (three reviews, two release writers, two
 * incident skills, four testing skills), so a query only passes if ranking tells them apart.
 */
const EXPECTED_TOP_HIT: readonly (readonly [query: string, top: string])[] = [
  ["review a pull request", "review-pr"],
  ["pull request review", "review-pr"],
  ["reviewpr", "review-pr"],
  ["revew-pr", "review-pr"],
  ["security review", "review-security"],
  ["check my change for injection and leaked secrets", "review-security"],
  ["describe my PR from the diff", "pr-description"],
  ["commit message", "commit-message"],
  ["conventional commits", "commit-message"],
  ["release notes", "release-notes"],
  ["changelog", "changelog-entry"],
  ["postmortem", "incident-postmortem"],
  ["post mortem", "incident-postmortem"],
  ["blameless write-up after an outage", "incident-postmortem"],
  ["live incident severity", "incident-triage"],
  ["on-call handoff", "oncall-handoff"],
  ["flaky test", "debug-flaky-test"],
  ["test fails intermittently", "debug-flaky-test"],
  ["memory leak", "debug-memory-leak"],
  ["heap snapshot", "debug-memory-leak"],
  ["slow endpoint latency", "debug-performance"],
  ["end to end tests", "write-e2e-tests"],
  ["playwright", "write-e2e-tests"],
  ["unit tests edge cases", "write-unit-tests"],
  ["what should we test for this feature", "test-strategy"],
  ["N+1 queries", "sql-query-review"],
  ["index for a slow query", "db-index-advisor"],
  ["zero downtime schema migration", "db-migration"],
  ["kubernetes probes", "k8s-manifest-review"],
  ["k8s", "k8s-manifest-review"],
  ["helm", "helm-chart"],
  ["terraform", "terraform-plan-review"],
  ["dockerfile image size", "docker-optimize"],
  ["github actions failing", "ci-pipeline-fix"],
  ["REST API design", "api-design"],
  ["graphql", "graphql-schema"],
  ["openapi", "openapi-stub"],
  ["ADR", "write-adr"],
  ["architecture decision", "write-adr"],
  ["extract function", "refactor-extract"],
  ["rename a symbol everywhere", "rename-symbol"],
  ["explain this code", "explain-code"],
  ["onboard a new engineer", "onboarding-guide"],
  ["readme", "readme-writer"],
  ["WCAG", "accessibility-audit"],
  ["react hooks", "react-component"],
  ["typescript generics", "typescript-types"],
  ["publish to pypi", "python-packaging"],
  ["regular expression", "regex-builder"],
  ["cron", "cron-expression"],
  ["acceptance criteria", "jira-ticket"],
  ["t-shirt sizes", "estimate-task"],
  ["meeting transcript action items", "meeting-notes"],
  ["STRIDE", "threat-model"],
  ["leaked api keys in a diff", "secrets-scan"],
  ["upgrade a dependency", "dependency-upgrade"],
  ["licenses", "license-check"],
  ["loki", "log-query"],
  ["remove stale feature flag", "feature-flag-cleanup"],
  ["writing style", "house-style"],
  ["translate", "translate-strings"],
];

let fixture: Fixture;
let registry: Registry;
beforeAll(async () => {
  fixture = makeFixture(catalogFixtureFiles());
  const loaded = await loadSkills({ cwd: fixture.cwd, home: fixture.home });
  registry = loaded.registry;
});
afterAll(() => fixture.cleanup());

describe("search relevance over a realistic catalog", () => {
  test("the fixture is what the set assumes: every skill served, folders and YAML alike", () => {
    expect(
      registry
        .served()
        .map((c) => c.skill.id)
        .sort(),
    ).toEqual([...CATALOG_SKILL_IDS].sort());
  });

  test.each(EXPECTED_TOP_HIT)("%p → %p first", (query, top) => {
    const { hits } = searchSkills(searchIndexOf(registry), { query, filter: modelMayUse, limit: 5 });
    expect(hits.map((h) => h.candidate.skill.id)[0]).toBe(top);
  });

  test("a skill only people may run is never found for a model, even by its exact name", () => {
    const { hits } = searchSkills(searchIndexOf(registry), { query: "deploy", filter: modelMayUse });
    expect(hits.map((h) => h.candidate.skill.id)).not.toContain("deploy");
  });

  test("a tag narrows the catalog to the skills carrying it", () => {
    const { hits } = searchSkills(searchIndexOf(registry), {
      query: "review",
      tags: ["database"],
      filter: modelMayUse,
    });
    expect(hits.map((h) => h.candidate.skill.id)).toEqual(["sql-query-review"]);
  });
});
