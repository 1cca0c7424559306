/**
 * What `tools/list` holds for each plan, built once per snapshot: apart from the handlers
 * (tools.ts), so the catalog's cost (catalog/sent-parts.ts) is counted from the very entries served.
 */
import type { Tool } from "@modelcontextprotocol/server";
import { FIND_SKILLS_TOOL, LOAD_SKILL_TOOL, RUN_SKILL_TOOL_TOOL } from "./catalog/catalog-tools.ts";
import { fitsAsToolName, planKey, type ToolSkillCounts, type ToolsPlan } from "./catalog/mode.ts";
import { perSnapshot } from "../registry/per-snapshot.ts";
import type { Registry } from "../registry/registry.ts";
import { TOOL_ANNOTATIONS } from "./skill-tools.ts";

export interface ToolSkills {
  /** Tool skills whose names fit a client's tool list, sorted by name. */
  fitting: Tool[];
  counts: ToolSkillCounts;
}

/** Every tool skill of a snapshot as an MCP tool, sorted by name; built once per snapshot. */
export const toolSkillsOf = perSnapshot((registry: Registry): ToolSkills => {
  const fitting: Tool[] = [];
  let unfitting = 0;
  for (const { skill } of registry.ofType("tool")) {
    if (!fitsAsToolName(skill.id)) {
      unfitting++;
      continue;
    }
    fitting.push({
      name: skill.id,
      ...(skill.title !== undefined && { title: skill.title }),
      description: skill.description,
      inputSchema: skill.inputSchema as Tool["inputSchema"],
      annotations: TOOL_ANNOTATIONS,
    });
  }
  return { fitting, counts: { fitting: fitting.length, unfitting } };
});

/** One listing per snapshot and plan, sorted by name (the pagination key). */
const listingsOf = perSnapshot(() => new Map<string, Tool[]>());

export function listTools(registry: Registry, plan: ToolsPlan): Tool[] {
  const cache = listingsOf(registry);
  const key = planKey(plan);
  let tools = cache.get(key);
  if (tools === undefined) {
    tools = plan.toolSkills ? [...toolSkillsOf(registry).fitting] : [];
    if (plan.catalog) {
      tools.push(FIND_SKILLS_TOOL, LOAD_SKILL_TOOL);
      if (plan.run) tools.push(RUN_SKILL_TOOL_TOOL);
      tools.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    }
    cache.set(key, tools);
  }
  return tools;
}
