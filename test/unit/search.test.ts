import { describe, expect, test } from "bun:test";
import type { Candidate, LayerRef } from "../../src/registry/registry.ts";
import { buildRegistry } from "../../src/registry/registry.ts";
import { buildSearchIndex, searchIndexOf, searchSkills } from "../../src/registry/search.ts";
import { stem, terms } from "../../src/registry/search-terms.ts";
import type { Skill } from "../../src/skill/skill.ts";
import { bodyHeadings } from "../../src/skill/headings.ts";
import { promptCandidate } from "../helpers/candidate.ts";

describe("search terms", () => {
  test("kebab-case, snake_case and camelCase split into words, and the compound is kept whole too", () => {
    expect(terms("review-pr")).toEqual(["review", "pr", "reviewpr"]);
    expect(terms("load_skill_file")).toEqual(["load", "skill", "file", "loadskillfil"]);
    expect(terms("getUserName")).toEqual(["get", "user", "name", "getusernam"]);
    expect(terms("parseHTTPResponse")).toEqual(["pars", "http", "respons", "parsehttprespons"]);
  });

  test("code words survive punctuation: C++, C#, F#, .NET, Node.js", () => {
    expect(terms("C++ and C# on .NET")).toEqual(["cpp", "csharp", "dotnet"]);
    expect(terms("Node.js")).toEqual(terms("nodejs"));
    expect(terms("F# scripts")).toEqual(["fsharp", "script"]);
  });

  test("common words are dropped, from skills and queries alike", () => {
    expect(terms("How do I write a test for the parser?")).toEqual(["writ", "test", "parser"]);
  });

  test("the stemmer folds inflections onto one term and leaves short words and numbers alone", () => {
    for (const [a, b] of [
      ["tests", "test"],
      ["testing", "test"],
      ["tested", "test"],
      ["debugging", "debug"],
      ["policies", "policy"],
      ["writing", "write"],
      ["merges", "merging"],
    ]) {
      expect(stem(a!)).toBe(stem(b!));
    }
    expect(stem("status")).toBe("status");
    expect(stem("analysis")).toBe("analysis");
    expect(stem("install")).toBe("install");
    expect(stem("api")).toBe("api");
    expect(stem("k8s")).toBe("k8s");
    expect(stem("oauth2")).toBe("oauth2");
  });

  test("a body's headings are its Markdown headings, outside fenced code, without Handlebars tags", () => {
    const body = "# Title\n\ntext\n\n## Step {{n}}: check\n```bash\n# not a heading\n```\n### Closing ###\n#nospace\n";
    expect(bodyHeadings(body)).toEqual(["Title", "Step : check", "Closing"]);
    expect(bodyHeadings("no headings here")).toBeUndefined();
    expect(bodyHeadings(undefined)).toBeUndefined();
  });
});

const LAYER: LayerRef = { name: "team", priority: 50, order: 1 };

const candidate = (id: string, fields: Partial<Skill> = {}): Candidate =>
  promptCandidate(id, LAYER, { description: `The ${id} skill`, ...fields }, { path: `/skills/${id}.yaml` });

const SKILLS = [
  candidate("review-pr", {
    title: "Pull request review",
    description: "Review a pull request for correctness",
    tags: ["review", "git"],
  }),
  candidate("pr-description", { description: "Write a pull request description from a diff", tags: ["git"] }),
  candidate("security-review", { description: "Find vulnerabilities in a change", tags: ["security", "review"] }),
  candidate("k8s-manifests", { description: "Check Kubernetes manifests for probes and limits", tags: ["infra"] }),
  candidate("documentation-writer", {
    description: "Write documentation pages",
    tags: ["docs"],
    headings: ["Audience", "Structure"],
  }),
  candidate("deploy", { description: "Deploy the service", modelInvocable: false }),
  candidate("zeta-tool", { type: "tool", description: "Formats zeta values", tags: ["git"] }),
];
const INDEX = buildSearchIndex([...SKILLS].sort((a, b) => (a.skill.id < b.skill.id ? -1 : 1)));
const ids = (result: { hits: { candidate: Candidate }[] }) => result.hits.map((h) => h.candidate.skill.id);

describe("ranking", () => {
  test("no query lists every allowed skill alphabetically, with the total before the limit", () => {
    const result = searchSkills(INDEX, { limit: 3 });
    expect(ids(result)).toEqual(["deploy", "documentation-writer", "k8s-manifests"]);
    expect(result.total).toBe(7);
    expect(result.hits.every((h) => h.score === 0)).toBe(true);
  });

  test("a query made only of common words is no query", () => {
    expect(ids(searchSkills(INDEX, { query: "how do I", limit: 2 }))).toEqual(["deploy", "documentation-writer"]);
  });

  test("a name match outranks a description match; a skill matching more of the query outranks one matching less", () => {
    expect(ids(searchSkills(INDEX, { query: "review" }))[0]).toBe("review-pr");
    expect(ids(searchSkills(INDEX, { query: "security review" }))[0]).toBe("security-review");
    expect(ids(searchSkills(INDEX, { query: "pull request description" }))[0]).toBe("pr-description");
  });

  test("the exact name comes first, however it is written", () => {
    expect(ids(searchSkills(INDEX, { query: "pr-description" }))[0]).toBe("pr-description");
    expect(ids(searchSkills(INDEX, { query: "pr description" }))[0]).toBe("pr-description");
    expect(ids(searchSkills(INDEX, { query: "PR_DESCRIPTION" }))[0]).toBe("pr-description");
  });

  test("related team words, longer words a query word begins, and typos still find the skill", () => {
    expect(ids(searchSkills(INDEX, { query: "kubernetes" }))[0]).toBe("k8s-manifests");
    expect(ids(searchSkills(INDEX, { query: "k8s" }))[0]).toBe("k8s-manifests");
    expect(ids(searchSkills(INDEX, { query: "docs" }))[0]).toBe("documentation-writer");
    expect(ids(searchSkills(INDEX, { query: "document" }))[0]).toBe("documentation-writer");
    expect(ids(searchSkills(INDEX, { query: "vulnerabilites" }))[0]).toBe("security-review");
    // One vocabulary for search and overlap (vocabulary.ts): an audit is a review.
    expect(ids(searchSkills(INDEX, { query: "audit" })).slice(0, 2)).toEqual(["review-pr", "security-review"]);
    expect(ids(searchSkills(INDEX, { query: "audience" }))[0]).toBe("documentation-writer");
  });

  test("nothing that matches no word is returned", () => {
    expect(searchSkills(INDEX, { query: "quantum chromodynamics" })).toEqual({ hits: [], total: 0 });
  });

  test("tags filter (every tag), the filter hides skills, and limit cuts without changing the total", () => {
    expect(ids(searchSkills(INDEX, { tags: ["git"] }))).toEqual(["pr-description", "review-pr", "zeta-tool"]);
    expect(ids(searchSkills(INDEX, { tags: ["git", "review"] }))).toEqual(["review-pr"]);
    expect(ids(searchSkills(INDEX, { query: "deploy", filter: (c) => c.skill.modelInvocable !== false }))).toEqual([]);
    expect(ids(searchSkills(INDEX, { query: "deploy" }))).toEqual(["deploy"]);
    const limited = searchSkills(INDEX, { query: "git review", limit: 1 });
    expect(limited.hits).toHaveLength(1);
    expect(limited.total).toBeGreaterThan(1);
  });

  test("equal scores are ordered by name", () => {
    const twins = buildSearchIndex(
      [candidate("b-twin", { description: "same words" }), candidate("a-twin", { description: "same words" })].sort(
        (a, b) => (a.skill.id < b.skill.id ? -1 : 1),
      ),
    );
    expect(ids(searchSkills(twins, { query: "same words" }))).toEqual(["a-twin", "b-twin"]);
  });

  test("a megabyte of query costs what its first words cost: the query is cut before it is read", () => {
    const result = searchSkills(INDEX, { query: `review ${"x".repeat(1_000_000)}` });
    expect(ids(result)[0]).toBe("review-pr");
    expect(searchSkills(INDEX, { query: `${"zz ".repeat(400)}review` }).total).toBe(0);
  });
});

describe("one index per registry snapshot", () => {
  test("built on first use and reused for the same snapshot; a new snapshot gets its own", () => {
    const { registry } = buildRegistry([LAYER], SKILLS);
    const first = searchIndexOf(registry);
    expect(searchIndexOf(registry)).toBe(first);
    expect(first.candidates.map((c) => c.skill.id)).toEqual(registry.served().map((c) => c.skill.id));
    const { registry: next } = buildRegistry([LAYER], SKILLS.slice(0, 2));
    expect(searchIndexOf(next)).not.toBe(first);
    expect(searchIndexOf(next).candidates).toHaveLength(2);
  });
});
