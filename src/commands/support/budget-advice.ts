/**
 * What `budget` tells a lead about a client over the budget its vendor publishes (shown, not
 * applied): the one config line that applies it, and what that client is sent once it does. The
 * figures come from the server's own plan and counting (src/mcp/catalog/budget.ts) under that
 * setting, never from an estimate, so the advice cannot promise what the server would not do.
 * `tokenBudget` is one number for every client: the clients it would switch besides this one are
 * named, so nobody applies it blind.
 */
import type { CatalogSettings } from "../../config/catalog-settings.ts";
import { clientCost, type ClientCost } from "../../mcp/catalog/budget.ts";
import type { Registry } from "../../registry/registry.ts";

export interface BudgetAdvice {
  /** The line to add to the project's config (or the user's), as written there. */
  line: string;
  /** What this client would be sent under it. */
  applied: { tokens: number; plan: ClientCost["plan"]; over: boolean };
  /** Prompt skills this client lists now that it would reach only through find_skills and load_skill. */
  promptsBehindCatalog: number;
  /** Tool skills this client lists now that would go behind run_skill_tool. */
  toolsBehindCatalog: number;
  /** Other clients (by label) the same line switches to the catalog plan. */
  alsoSwitches: string[];
}

/**
 * The advice for `cost` (one client's), when it is over a published budget; undefined otherwise
 * (under its budget, or over a `tokenBudget` already applied: then the plan is the server's).
 * `others` are the other clients reported, to say which ones the same line switches too.
 */
export function budgetAdvice(
  registry: Registry,
  settings: CatalogSettings,
  cost: ClientCost,
  others: readonly string[],
): BudgetAdvice | undefined {
  if (!cost.over || cost.budget?.source !== "published") return undefined;
  const budget = cost.budget.tokens;
  const applied: CatalogSettings = { ...settings, tokenBudget: budget };
  const then = clientCost(registry, applied, cost.client);
  // Under the catalog plan prompts/list is empty and every tool skill is behind run_skill_tool.
  const moved = then.plan === "catalog" ? cost.skills.map((s) => registry.get(s.id)?.skill.type) : [];
  const toolsBehindCatalog = moved.filter((type) => type === "tool").length;
  const promptsBehindCatalog = moved.filter((type) => type === "prompt").length;
  const alsoSwitches = others
    .filter((name) => name !== cost.client)
    .flatMap((name) => {
      const before = clientCost(registry, settings, name);
      const after = clientCost(registry, applied, name);
      return before.plan === "full" && after.plan === "catalog" ? [after.label] : [];
    });
  return {
    line: `tokenBudget: ${budget}`,
    applied: { tokens: then.tokens, plan: then.plan, over: then.over },
    promptsBehindCatalog,
    toolsBehindCatalog,
    alsoSwitches: [...new Set(alsoSwitches)],
  };
}
