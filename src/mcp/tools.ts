/** `tools/list` and `tools/call`: each client's plan (skills as tools, or the catalog), and which skill a call uses. */
import { CallToolRequestParamsSchema, PaginatedRequestParamsSchema } from "@modelcontextprotocol/core";
import {
  type CallToolResult,
  isInputRequiredResult,
  type ListToolsResult,
  type Server,
  type ServerContext,
} from "@modelcontextprotocol/server";
import type { CatalogSettings } from "../config/catalog-settings.ts";
import type { Registry } from "../registry/registry.ts";
import {
  FIND_SKILLS,
  LOAD_SKILL,
  planKey,
  planTools,
  requestClient,
  RUN_SKILL_TOOL,
  type ToolsPlan,
} from "./catalog/mode.ts";
import { withinTokenBudget } from "./catalog/token-budget.ts";
import { findSkills, loadSkillTool, runSkillTool } from "./catalog/catalog-tools.ts";
import type { ClientProfile } from "./catalog/client-profiles.ts";
import type { Feature, SkillUseVia } from "./feature.ts";
import { hasDeprecated } from "../registry/deprecated.ts";
import { reportUse, thrownOutcome, withDeprecation } from "./skill-use.ts";
import { paginate } from "./pagination.ts";
import type { RegistrySource } from "./registry-source.ts";
import { handle, isString } from "./request-handler.ts";
import { declinesNoted, withMissingAsked, type MissingArguments } from "./ask-missing.ts";
import { missingToolArguments } from "./ask-tool.ts";
import { isPlainObject } from "../skill/json-schema.ts";
import { runTool } from "./skill-tools.ts";
import { listTools, toolSkillsOf } from "./tool-listing.ts";

/** What a client is offered, for the catalog settings being served (and its token budget, catalog/token-budget.ts). */
export function planFor(registry: Registry, settings: CatalogSettings, client: ClientProfile): ToolsPlan {
  return withinTokenBudget(registry, settings, client, planTools(settings, client, toolSkillsOf(registry).counts));
}

export function listToolsPage(
  registry: Registry,
  plan: ToolsPlan,
  cursor: string | undefined,
  pageSize: number | undefined,
): ListToolsResult {
  const page = paginate(listTools(registry, plan), (t) => t.name, "tools/list", cursor, pageSize);
  return { tools: page.items, ...(page.nextCursor !== undefined && { nextCursor: page.nextCursor }) };
}

const CATALOG_TOOL_NAMES: ReadonlySet<string> = new Set([FIND_SKILLS, LOAD_SKILL, RUN_SKILL_TOOL]);

/** A catalog tool, when this client's plan lists it; otherwise undefined (the name is then an unknown tool, as for any name). */
function callCatalogTool(
  registry: Registry,
  plan: ToolsPlan,
  name: string,
  args: unknown,
): CallToolResult | Promise<CallToolResult> | undefined {
  if (!plan.catalog) return undefined;
  if (name === FIND_SKILLS) return findSkills(registry, args, plan);
  if (name === LOAD_SKILL) return loadSkillTool(registry, args, plan);
  if (name === RUN_SKILL_TOOL && plan.run) return runSkillTool(registry, args);
  return undefined;
}

/** Which skill a `tools/call` names, and how: a tool skill itself, or one behind a catalog tool (`find_skills` names none). */
function useOfCall(name: string, args: unknown, viaCatalog: boolean): [string, SkillUseVia] | undefined {
  if (!viaCatalog) return [name, "tools/call"];
  const named = isPlainObject(args) && isString(args.name) ? args.name : undefined;
  if (named === undefined || name === FIND_SKILLS) return undefined;
  return [named, name === LOAD_SKILL ? "load_skill" : "run_skill_tool"];
}

/** What a call would ask for: a tool skill's missing arguments, or those of the tool skill `run_skill_tool` names. */
function missingArgumentsOfCall(
  registry: Registry,
  plan: ToolsPlan | undefined,
  name: string,
  args: Record<string, unknown> | undefined,
  call: (args: unknown) => CallToolResult | Promise<CallToolResult>,
): MissingArguments<CallToolResult> | undefined {
  if (plan === undefined) return missingToolArguments(registry, name, args, call);
  if (name !== RUN_SKILL_TOOL || !plan.catalog || !plan.run || typeof args?.name !== "string") return undefined;
  const inner = args.name;
  return missingToolArguments(
    registry,
    inner,
    args.arguments,
    (values) => call({ ...args, arguments: values }),
    `${RUN_SKILL_TOOL}/${inner}`,
  );
}

/** The client kinds whose tool lists differ; a reload re-lists tools when any of theirs changed. */
const REPRESENTATIVE_CLIENTS: readonly ClientProfile[] = (["shown", "not-shown", "unknown"] as const).flatMap(
  (prompts) => [true, false].map((capped) => ({ name: undefined, prompts, capped, basis: "unknown" as const })),
);

/** What `tools/list` says to each kind of client: its plan and the tool skills' definitions (the catalog tools never change). */
function toolListsByClientKind(registry: Registry, settings: CatalogSettings): unknown {
  return {
    plans: REPRESENTATIVE_CLIENTS.map((client) => planKey(planFor(registry, settings, client))),
    toolSkills: toolSkillsOf(registry).fitting,
  };
}

function planOfRequest(server: Server, ctx: ServerContext, registry: Registry, source: RegistrySource): ToolsPlan {
  return planFor(registry, source.catalogSettings(), requestClient(server, ctx));
}

export const toolsFeature: Feature = {
  name: "tools",
  capabilities: ({ live }) => ({ tools: { listChanged: live } }),
  register(server, source: RegistrySource, { onUse }) {
    handle(server, "tools/list", PaginatedRequestParamsSchema, async (params, ctx) => {
      const registry = await source.current();
      return listToolsPage(registry, planOfRequest(server, ctx, registry, source), params.cursor, source.pageSize());
    });
    handle(
      server,
      "tools/call",
      CallToolRequestParamsSchema,
      async (params, ctx) => {
        const registry = await source.current();
        // A tool skill's call (the common one) needs no plan: only the catalog's names depend on it.
        const plan = CATALOG_TOOL_NAMES.has(params.name) ? planOfRequest(server, ctx, registry, source) : undefined;
        let viaCatalog = false;
        const call = (args: unknown) => {
          const answer = plan && callCatalogTool(registry, plan, params.name, args);
          viaCatalog = answer !== undefined;
          return answer ?? runTool(registry, params.name, args);
        };
        let declined = false;
        const ask = declinesNoted(missingArgumentsOfCall(registry, plan, params.name, params.arguments, call), () => {
          declined = true;
        });
        const result = withMissingAsked(server, ctx, source.elicitation(), ask, () => call(params.arguments));
        // The common call, to a skill neither deprecated nor recorded, is answered as it comes.
        if (onUse === undefined && !hasDeprecated(registry)) return result;
        let answered: Awaited<typeof result>;
        try {
          answered = await result;
        } catch (error) {
          const use = useOfCall(params.name, params.arguments, viaCatalog);
          if (use !== undefined) reportUse(onUse, server, ctx, registry, use[0], use[1], thrownOutcome(error));
          throw error;
        }
        // Counted once answered, not while a form is out.
        if (isInputRequiredResult(answered)) return answered;
        const toolResult = answered as CallToolResult;
        const use = useOfCall(params.name, params.arguments, viaCatalog);
        if (use === undefined) return toolResult;
        const failed = toolResult.isError === true;
        // A tool skill's error result is its arguments refused (tool skills render, they do not run code).
        reportUse(onUse, server, ctx, registry, use[0], use[1], failed ? (declined ? "declined" : "refused") : "ok");
        return failed ? toolResult : withDeprecation(toolResult, registry, use[0]);
      },
      { required: { name: isString }, optional: { arguments: isPlainObject } },
    );
  },
  lists: [{ kind: "tools", entries: toolListsByClientKind }],
};
