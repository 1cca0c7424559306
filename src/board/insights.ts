/**
 * The board's views of what the catalog costs and how it is used: a client's cost in tokens
 * against its budget (the `budget` command's own function; the skills that compete are added
 * from board/competing.ts), and uses from the usage store (`usage`'s `readUsage`).
 * Each is computed when the page asks for it, never when the board starts: counting tokens
 * loads the tokenizer's rank table, and the usage store is a file another process writes.
 */
import type { UsageSettings } from "../config/usage-settings.ts";
import { clientCost } from "../mcp/catalog/budget.ts";
import type { RegistrySource } from "../mcp/registry-source.ts";
import { TOKENIZER } from "../mcp/catalog/token-count.ts";
import type { Registry } from "../registry/registry.ts";
import { storeLocation, type StoreLocation } from "../storage/store-location.ts";
import { readUsage } from "../storage/usage-store.ts";
import type { CostView, SkillUsageView, UsageOverview } from "./wire.ts";

/** The costliest skills the page shows: the top of the list, as `budget` prints its top. */
const COSTLIEST = 10;
/** "Unused" on the home view, and the chart's window: a month, a bucket a day. */
export const USAGE_DAYS = 30;
const DAY_MS = 24 * 60 * 60 * 1000;
/** How many unused skills the home view names (then it says how many more): a page, not the catalog. */
const UNUSED_SHOWN = 50;
/** How many skills the Overview's "Most used" names. */
const MOST_USED_SHOWN = 10;

/** The client's cost; the competing pairs are the load's, added when the view is sent. */
export function costView(
  source: RegistrySource,
  registry: Registry,
  name: string | undefined,
): Omit<CostView, "competing"> {
  const settings = source.catalogSettings();
  const cost = clientCost(registry, settings, name);
  return {
    label: cost.label,
    tokenizer: TOKENIZER,
    sent: { tokens: cost.tokens, chars: cost.chars },
    limit: cost.budget && { ...cost.budget, over: cost.over },
    plan: cost.plan,
    ...(cost.full !== undefined && { whole: cost.full }),
    costliest: cost.skills.slice(0, COSTLIEST),
    skillCount: cost.skills.length,
  };
}

/** The store the settings name (not "off"). */
function storeOf(store: string, settings: UsageSettings): StoreLocation {
  return storeLocation(store, settings.passwordEnv);
}

/** Served skills nobody used in the last USAGE_DAYS days. */
export async function usageOverview(
  settings: UsageSettings | undefined,
  registry: Registry,
  now = Date.now(),
): Promise<UsageOverview> {
  if (settings === undefined || settings.store === "off")
    return { recording: false, days: USAGE_DAYS, unused: [], unusedCount: 0, mostUsed: [] };
  const read = await readUsage(storeOf(settings.store, settings), { since: now - USAGE_DAYS * DAY_MS, until: now });
  // A store that cannot be read says nothing about which skills were used: none is called unused.
  if (read.problem !== undefined)
    return { recording: true, days: USAGE_DAYS, unused: [], unusedCount: 0, mostUsed: [], problem: read.problem };
  // A refused call is not a use: a skill only ever refused is unused.
  const used = new Set(read.skills.filter((u) => u.uses > 0).map((u) => u.skill));
  const unused = registry
    .served()
    .map((c) => c.skill.id)
    .filter((id) => !used.has(id))
    .sort();
  const served = new Set(registry.served().map((c) => c.skill.id));
  const mostUsed = read.skills
    .filter((u) => u.uses > 0 && served.has(u.skill))
    .sort((a, b) => b.uses - a.uses || (a.skill < b.skill ? -1 : 1))
    .slice(0, MOST_USED_SHOWN)
    .map((u) => ({ id: u.skill, uses: u.uses, refused: u.refused }));
  return {
    recording: true,
    days: USAGE_DAYS,
    unused: unused.slice(0, UNUSED_SHOWN),
    unusedCount: unused.length,
    mostUsed,
  };
}

/**
 * One skill's uses a day over the last USAGE_DAYS days, and its total and clients over the kept
 * history. `from` is where the viewer's first day starts (the page's local midnight): each bucket
 * is then one of the viewer's days, so a use at 23:39 UTC is drawn on the day the viewer lived it.
 * A `from` outside the last USAGE_DAYS + 1 days is not the page's: the window then ends now.
 */
export async function skillUsage(
  settings: UsageSettings | undefined,
  id: string,
  now = Date.now(),
  from?: number,
): Promise<SkillUsageView> {
  const earliest = now - (USAGE_DAYS + 1) * DAY_MS;
  const since = from !== undefined && from >= earliest && from <= now ? from : now - USAGE_DAYS * DAY_MS;
  const empty = { days: USAGE_DAYS, buckets: new Array<number>(USAGE_DAYS).fill(0), since, total: 0 };
  if (settings === undefined || settings.store === "off")
    return { recording: false, ...empty, keepDays: settings?.keepDays ?? 0, clients: [] };
  const store = storeOf(settings.store, settings);
  const [read, whole] = await Promise.all([
    readUsage(store, {
      since,
      until: since + USAGE_DAYS * DAY_MS,
      skill: id,
      buckets: USAGE_DAYS,
      exactBuckets: true,
    }),
    readUsage(store, { since: now - settings.keepDays * DAY_MS, until: now, skill: id }),
  ]);
  if (read.problem !== undefined)
    return { recording: true, ...empty, keepDays: settings.keepDays, clients: [], problem: read.problem };
  const [month] = read.skills;
  const kept = whole.skills.find((u) => u.uses > 0);
  return {
    recording: true,
    ...empty,
    ...(month && { buckets: month.buckets }),
    total: kept?.uses ?? 0,
    keepDays: settings.keepDays,
    clients: Object.entries(kept?.clients ?? {})
      .map(([name, uses]) => ({ name, uses }))
      .sort((a, b) => b.uses - a.uses || (a.name < b.name ? -1 : 1)),
    ...(kept && { lastUsed: kept.lastUsed }),
  };
}
