import { describe, expect, test } from "bun:test";
import { clientCost } from "../../src/mcp/catalog/budget.ts";
import { DEFAULT_CATALOG_SETTINGS, type CatalogSettings } from "../../src/config/catalog-settings.ts";
import { fitsBudget } from "../../src/mcp/catalog/token-budget.ts";
import { clientProfile } from "../../src/mcp/catalog/client-profiles.ts";
import { countTokens, tokenBounds } from "../../src/mcp/catalog/token-count.ts";
import { planFor } from "../../src/mcp/tools.ts";
import { buildRegistry, type Candidate, type LayerRef, type Registry } from "../../src/registry/registry.ts";
import type { Skill } from "../../src/skill/skill.ts";
import { promptCandidate } from "../helpers/candidate.ts";

const TEAM: LayerRef = { name: "team", priority: 50, order: 1 };

const candidate = (id: string, fields: Partial<Skill> = {}): Candidate =>
  promptCandidate(
    id,
    TEAM,
    {
      description: `Use when you need ${id.replaceAll("-", " ")}: a checklist of what to look at, in order, and what to report.`,
      ...fields,
    },
    { template: "x" },
  );

const registryOf = (candidates: Candidate[]): Registry => buildRegistry([TEAM], candidates).registry;
const ids = (n: number) => Array.from({ length: n }, (_, i) => `skill-number-${i}`);
const settings = (extra: Partial<CatalogSettings> = {}): CatalogSettings => ({ ...DEFAULT_CATALOG_SETTINGS, ...extra });

describe("what a client is sent, counted", () => {
  test("adding one skill raises a client's total by about that skill's own cost", () => {
    const base = ids(20).map((id) => candidate(id));
    const added = candidate("database-migration-review", {
      description:
        "Review a database migration before it ships: locking, backfills, rollback and the order of deploys.",
      arguments: [{ name: "migration", description: "The migration file or its diff", required: true }],
    });
    for (const client of ["claude-code", "cursor-vscode"]) {
      const before = clientCost(registryOf(base), settings(), client);
      const after = clientCost(registryOf([...base, added]), settings(), client);
      const own = after.skills.find((s) => s.id === "database-migration-review")!.tokens;
      expect(own).toBeGreaterThan(30);
      // The skill's own entry, plus the comma that joins it to the list.
      expect(after.tokens - before.tokens).toBeGreaterThanOrEqual(own);
      expect(after.tokens - before.tokens).toBeLessThanOrEqual(own + 2);
    }
    // Codex does not read prompts: a prompt skill costs it only what the instructions say of it.
    const codex = clientCost(registryOf([...base, added]), settings(), "codex-mcp-client");
    expect(codex.skills).toEqual([]);
  });

  test("the pinned shape: client, label, tokens, chars, budget, over, plan, skills", () => {
    const cost = clientCost(
      registryOf(ids(5).map((id) => candidate(id))),
      settings({ tokenBudget: 100_000 }),
      "claude-code",
    );
    expect(Object.keys(cost).sort()).toEqual([
      "budget",
      "chars",
      "client",
      "label",
      "over",
      "plan",
      "skills",
      "tokens",
    ]);
    expect(cost).toMatchObject({
      client: "claude-code",
      label: "Claude Code",
      budget: { tokens: 100_000 },
      over: false,
      plan: "full",
    });
    expect(cost.skills.map((s) => s.id).sort()).toEqual(ids(5).sort());
  });

  test("over tokenBudget a client's plan is the catalog, and what it is then sent fits the budget", () => {
    const registry = registryOf(ids(60).map((id) => candidate(id)));
    const cost = clientCost(registry, settings({ tokenBudget: 2000 }), "claude-code");
    expect(cost.plan).toBe("catalog");
    expect(cost.full!.tokens).toBeGreaterThan(2000);
    expect(cost.tokens).toBeLessThanOrEqual(2000);
    expect(cost.over).toBe(false);
    const plan = planFor(registry, settings({ tokenBudget: 2000 }), clientProfile({ name: "claude-code" }, undefined));
    expect(plan).toMatchObject({ catalog: true, toolSkills: false, prompts: false });
    expect(plan.why).toContain("more than tokenBudget 2000");
  });

  test("without tokenBudget, or with catalog: off, the plan is what it was", () => {
    const registry = registryOf(ids(60).map((id) => candidate(id)));
    const claude = clientProfile({ name: "claude-code" }, undefined);
    expect(planFor(registry, settings(), claude).prompts).toBeUndefined();
    expect(planFor(registry, settings({ mode: "off", tokenBudget: 500 }), claude)).toMatchObject({ catalog: false });
  });
});

describe("bounds before the tokenizer", () => {
  test("pre-tokenizer pieces never exceed the tokens, and the tokens never exceed the bytes", () => {
    for (const text of [
      '{"name":"review-pr","description":"Review a pull request: correctness, tests"}',
      "    lots    of     spaces\n\n\n  ",
      "日本語のテキスト 🎉🎉 naïve café",
      "x".repeat(300),
      "<|endoftext|> is plain text here",
      "getUserName snake_case_words C++ .NET 12345678",
    ]) {
      const { low, high } = tokenBounds(text);
      const tokens = countTokens(text);
      expect({ text, low: low <= tokens, high: tokens <= high }).toEqual({ text, low: true, high: true });
    }
  });

  test("a budget far above or below the text is decided by the bounds alone", () => {
    const parts = ["Review a pull request for correctness and tests.", "Write a blameless postmortem."].map((text) => ({
      text,
    }));
    expect(fitsBudget(parts, 10_000)).toBe(true);
    expect(fitsBudget(parts, 3)).toBe(false);
    // Near the line the tokenizer decides, exactly.
    const exact = parts.reduce((sum, p) => sum + countTokens(p.text), 0);
    expect(fitsBudget(parts, exact)).toBe(true);
    expect(fitsBudget(parts, exact - 1)).toBe(false);
  });
});
