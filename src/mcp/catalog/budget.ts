/**
 * What one client is sent to learn the catalog, in o200k tokens and characters, under the plan
 * the server would give it, against its budget where one is known: `skill-central budget` prints
 * it and the board draws it. Counting loads the tokenizer's rank table (src/mcp/catalog/token-count.ts),
 * so callers ask only when someone wants the number.
 */
import type { CatalogSettings } from "../../config/catalog-settings.ts";
import type { Registry } from "../../registry/registry.ts";
import { sentParts, type SentPart } from "./sent-parts.ts";
import { clientLabel, publishedBudget } from "./client-budgets.ts";
import { clientProfile } from "./client-profiles.ts";
import { countTokens } from "./token-count.ts";
import { planFor } from "../tools.ts";

export interface ClientCost {
  client: string;
  label: string;
  tokens: number;
  chars: number;
  budget: { tokens: number; source: "tokenBudget" | "published" } | null;
  over: boolean;
  plan: "full" | "catalog";
  /** What the full catalog would cost, when the budget gave this client the catalog instead. */
  full?: { tokens: number; chars: number };
  skills: { id: string; tokens: number }[];
}

interface Counted {
  tokens: number;
  chars: number;
  skills: Map<string, number>;
}

function count(parts: Iterable<SentPart>): Counted {
  const skills = new Map<string, number>();
  let tokens = 0;
  let chars = 0;
  for (const part of parts) {
    const n = countTokens(part.text);
    tokens += n;
    chars += part.text.length;
    if (part.skill !== undefined) skills.set(part.skill, (skills.get(part.skill) ?? 0) + n);
  }
  return { tokens, chars, skills };
}

/**
 * What `name` is sent under the plan the server would give it, and what it would be sent in
 * full; `name` undefined is a client that sends no `clientInfo.name`.
 */
export function clientCost(registry: Registry, settings: CatalogSettings, name: string | undefined): ClientCost {
  const profile = clientProfile(name === undefined ? undefined : { name }, undefined);
  const live = { live: true };
  const plan = planFor(registry, settings, profile);
  const sent = count(sentParts(registry, plan, profile, live));
  const switched = plan.prompts === false;
  const full = switched
    ? count(sentParts(registry, planFor(registry, { ...settings, tokenBudget: undefined }, profile), profile, live))
    : undefined;
  const published = name === undefined ? undefined : publishedBudget(name);
  const limit =
    settings.tokenBudget !== undefined
      ? { tokens: settings.tokenBudget, source: "tokenBudget" as const }
      : published !== undefined
        ? { tokens: published, source: "published" as const }
        : null;
  return {
    client: name ?? "",
    label: name === undefined ? "a client that sends no name" : clientLabel(name),
    tokens: sent.tokens,
    chars: sent.chars,
    budget: limit,
    over: limit !== null && sent.tokens > limit.tokens,
    plan: switched ? "catalog" : "full",
    ...(full !== undefined && { full: { tokens: full.tokens, chars: full.chars } }),
    skills: [...sent.skills]
      .map(([id, tokens]) => ({ id, tokens }))
      .sort((a, b) => b.tokens - a.tokens || (a.id < b.id ? -1 : 1)),
  };
}
