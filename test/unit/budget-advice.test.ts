import { describe, expect, test } from "bun:test";
import { DEFAULT_CATALOG_SETTINGS } from "../../src/config/catalog-settings.ts";
import { clientCost } from "../../src/mcp/catalog/budget.ts";
import { buildRegistry, type Candidate, type LayerRef, type Registry } from "../../src/registry/registry.ts";
import { budgetAdvice } from "../../src/commands/support/budget-advice.ts";
import { promptCandidate } from "../helpers/candidate.ts";

const TEAM: LayerRef = { name: "team", priority: 50, order: 1 };
const description = (id: string) =>
  `Use when you need ${id.replaceAll("-", " ")}: a checklist of what to look at, in order, and what to report back.`;
const prompts = (n: number): Candidate[] =>
  Array.from({ length: n }, (_, i) =>
    promptCandidate(`prompt-number-${i}`, TEAM, { description: description(`prompt ${i}`) }, { template: "x" }),
  );
const registryOf = (candidates: Candidate[]): Registry => buildRegistry([TEAM], candidates).registry;
const CLIENTS = ["claude-code", "codex-mcp-client", "cursor-vscode"];

describe("budget's advice for a client over its published budget", () => {
  test("names the line that applies it and what the client is sent then, counted under that line by the server's own plan", () => {
    const registry = registryOf(prompts(60));
    const cost = clientCost(registry, DEFAULT_CATALOG_SETTINGS, "claude-code");
    expect(cost.over).toBe(true);
    const advice = budgetAdvice(registry, DEFAULT_CATALOG_SETTINGS, cost, CLIENTS)!;
    expect(advice.line).toBe("tokenBudget: 2000");
    const applied = clientCost(registry, { ...DEFAULT_CATALOG_SETTINGS, tokenBudget: 2000 }, "claude-code");
    expect(advice.applied).toEqual({ tokens: applied.tokens, plan: "catalog", over: false });
    expect(advice.promptsBehindCatalog).toBe(60);
    expect(advice.toolsBehindCatalog).toBe(0);
    // One number for every client: Cursor publishes no budget but would be switched too; Codex reads no prompts and stays under.
    expect(advice.alsoSwitches).toEqual(["Cursor"]);
  });

  test("no advice under the budget, nor for a tokenBudget already applied (the plan is then the server's)", () => {
    const small = registryOf(prompts(2));
    expect(
      budgetAdvice(
        small,
        DEFAULT_CATALOG_SETTINGS,
        clientCost(small, DEFAULT_CATALOG_SETTINGS, "claude-code"),
        CLIENTS,
      ),
    ).toBeUndefined();
    const big = registryOf(prompts(60));
    const settings = { ...DEFAULT_CATALOG_SETTINGS, tokenBudget: 600 };
    const over = clientCost(big, settings, "claude-code");
    expect(over.over).toBe(true);
    expect(budgetAdvice(big, settings, over, CLIENTS)).toBeUndefined();
  });

  test("tool skills are counted apart: they go behind run_skill_tool", () => {
    const tools = Array.from({ length: 30 }, (_, i) =>
      promptCandidate(`tool-number-${i}`, TEAM, {
        description: description(`tool ${i}`),
        type: "tool",
        inputSchema: { type: "object", properties: {} },
      }),
    );
    const registry = registryOf([...prompts(30), ...tools]);
    const cost = clientCost(registry, DEFAULT_CATALOG_SETTINGS, "claude-code");
    const advice = budgetAdvice(registry, DEFAULT_CATALOG_SETTINGS, cost, ["claude-code"])!;
    expect(advice.toolsBehindCatalog).toBe(30);
    expect(advice.promptsBehindCatalog).toBe(30);
    expect(advice.alsoSwitches).toEqual([]);
  });
});
