/**
 * The token budget's part in a client's plan (docs/catalog.md): a client whose full catalog —
 * instructions, tools and prompts as sent-parts.ts counts them — would cost more than
 * `tokenBudget` gets the catalog instead: the catalog tools and instructions, every tool skill
 * behind `run_skill_tool`, no prompts listed. Decided once per snapshot and kind of client, and
 * only for a client a budget applies to; sure bounds that need no tokenizer decide first
 * (token-count.ts), and the tokenizer is loaded only when the catalog is too close to the line.
 */
import type { CatalogSettings } from "../../config/catalog-settings.ts";
import { perSnapshot } from "../../registry/per-snapshot.ts";
import type { Registry } from "../../registry/registry.ts";
import { planKey, type ToolsPlan } from "./mode.ts";
import { sentParts } from "./sent-parts.ts";
import type { ClientProfile } from "./client-profiles.ts";
import { countTokens, tokenBounds } from "./token-count.ts";
import { toolSkillsOf } from "../tool-listing.ts";

/**
 * Instructions are counted as a watching server words them (one sentence more than a server that
 * does not watch): a plan is decided before, and apart from, the transport that serves it.
 */
const COUNTED_AS = { live: true };

/** Whether what `parts` adds up to is within `budget` tokens: bounds first, the tokenizer only near the line. */
export function fitsBudget(parts: Iterable<{ text: string }>, budget: number): boolean {
  const texts: string[] = [];
  let low = 0;
  let high = 0;
  for (const { text } of parts) {
    const bounds = tokenBounds(text);
    low += bounds.low;
    high += bounds.high;
    if (low > budget) return false;
    texts.push(text);
  }
  if (high <= budget) return true;
  let total = 0;
  for (const text of texts) {
    total += countTokens(text);
    if (total > budget) return false;
  }
  return true;
}

const fitsBySnapshot = perSnapshot(() => new Map<string, boolean>());

/** The plan a client over its budget gets instead of `full`. */
function budgetPlan(registry: Registry, full: ToolsPlan, budget: number, client: ClientProfile): ToolsPlan {
  const { fitting, unfitting } = toolSkillsOf(registry).counts;
  const who = client.name === undefined ? "this client" : `"${client.name}"`;
  return {
    catalog: true,
    run: fitting + unfitting > 0,
    toolSkills: false,
    prompts: false,
    why: `${full.why}; the full catalog would cost ${who} more than tokenBudget ${budget}`,
  };
}

/** `plan`, or the catalog when `plan` would cost this client more than its budget. */
export function withinTokenBudget(
  registry: Registry,
  settings: CatalogSettings,
  client: ClientProfile,
  plan: ToolsPlan,
): ToolsPlan {
  const budget = settings.tokenBudget;
  // `catalog: off` promises no catalog tools to anyone: the budget cannot bring them.
  if (budget === undefined || settings.mode === "off") return plan;
  const key = `${planKey(plan)}|${client.prompts}|${budget}`;
  const known = fitsBySnapshot(registry);
  let fits = known.get(key);
  if (fits === undefined) {
    fits = fitsBudget(sentParts(registry, plan, client, COUNTED_AS), budget);
    known.set(key, fits);
  }
  return fits ? plan : budgetPlan(registry, plan, budget, client);
}
