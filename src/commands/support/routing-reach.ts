/**
 * Whose catalog `skill-central eval` ranks over: every skill a model may use (the catalog tools),
 * or what one client's plan lets a model reach, or each known client's, grouped by plan. The
 * plans are the server's own (src/mcp/tools.ts), so routing sees what a client is offered.
 */
import { formatTable } from "../../cli-output/table.ts";
import type { DEFAULT_CATALOG_SETTINGS } from "../../config/catalog-settings.ts";
import { modelMayUse } from "../../invoke/load-skill.ts";
import { clientLabel, knownClientNames } from "../../mcp/catalog/client-budgets.ts";
import { clientProfile } from "../../mcp/catalog/client-profiles.ts";
import { listTools } from "../../mcp/tool-listing.ts";
import { planFor } from "../../mcp/tools.ts";
import type { Candidate, Registry } from "../../registry/registry.ts";
import { routeTriggerSets, type RoutingQuery } from "../../registry/routing.ts";
import { searchIndexOf } from "../../registry/search.ts";
import { plural } from "./command.ts";

const percent = (r: number | null) => (r === null ? "-" : `${Math.round(r * 100)}%`);

export interface Reach {
  filter: (candidate: Candidate) => boolean;
  client?: { name: string; catalogTools: boolean; plan: string };
}

/**
 * The skills a model can pick from. With the catalog tools (find_skills), every skill a model may
 * use; for a client whose plan has none, only the skills listed to it as tools: prompts are for
 * people to choose (slash commands), never the model.
 */
export function reachOf(
  registry: Registry,
  settings: typeof DEFAULT_CATALOG_SETTINGS,
  client: string | undefined,
): Reach {
  if (client === undefined) return { filter: modelMayUse };
  const plan = planFor(registry, settings, clientProfile({ name: client }, undefined));
  const listed = new Set(listTools(registry, plan).map((t) => t.name));
  return {
    filter: plan.catalog ? modelMayUse : (c) => modelMayUse(c) && listed.has(c.skill.id),
    client: { name: client, catalogTools: plan.catalog, plan: plan.why },
  };
}

export interface PlanSummary {
  clients: string[];
  catalogTools: boolean;
  reachable: number;
  /** Mean over the skills with should-trigger queries; null with none. */
  meanRecallAt1: number | null;
  meanRecallAt3: number | null;
  falseFires: number;
  /** Skills with a trigger set this plan cannot reach at all. */
  unreachable: string[];
}

const mean = (values: readonly (number | null)[]) => {
  const known = values.filter((v): v is number => v !== null);
  return known.length === 0 ? null : known.reduce((a, b) => a + b, 0) / known.length;
};

/** Every known client's reach, grouped: clients a plan gives the same skills share one ranking. */
export function perPlan(
  registry: Registry,
  settings: typeof DEFAULT_CATALOG_SETTINGS,
  sets: ReadonlyMap<string, readonly RoutingQuery[]>,
): PlanSummary[] {
  const groups = new Map<string, { clients: string[]; reach: Reach }>();
  for (const name of knownClientNames()) {
    const reach = reachOf(registry, settings, name);
    const key = registry
      .served()
      .filter(reach.filter)
      .map((c) => c.skill.id)
      .join("\n");
    const group = groups.get(key);
    if (group) group.clients.push(clientLabel(name));
    else groups.set(key, { clients: [clientLabel(name)], reach });
  }
  return [...groups.values()].map(({ clients, reach }) => {
    const results = routeTriggerSets(searchIndexOf(registry), sets, reach.filter);
    return {
      clients,
      catalogTools: reach.client?.catalogTools ?? true,
      reachable: registry.served().filter(reach.filter).length,
      meanRecallAt1: mean(results.map((r) => r.recallAt1)),
      meanRecallAt3: mean(results.map((r) => r.recallAt3)),
      falseFires: results.reduce((n, r) => n + r.falseFires, 0),
      unreachable: results.filter((r) => !r.reachable).map((r) => r.skill),
    };
  });
}

export function plansText(
  plans: readonly PlanSummary[],
  columns: number | undefined,
  bold: (s: string) => string,
): string {
  const table = [
    ["CLIENTS", "CATALOG TOOLS", "REACHABLE", "MEAN RECALL@1", "MEAN RECALL@3", "FALSE FIRES", "UNREACHABLE"],
    ...plans.map((p) => [
      p.clients.join(", "),
      p.catalogTools ? "yes" : "no",
      String(p.reachable),
      percent(p.meanRecallAt1),
      percent(p.meanRecallAt3),
      String(p.falseFires),
      p.unreachable.length === 0 ? "" : plural(p.unreachable.length, "skill"),
    ]),
  ];
  return formatTable(table, { ...(columns !== undefined && { maxWidth: columns }), header: bold });
}
