/**
 * What one client gets, through the functions the MCP handlers answer with: the profile its
 * `clientInfo.name` earns, the plan for the catalog settings being served, `tools/list` (every
 * page of it), `prompts/list` and the instructions of `initialize` (for a client answered
 * before the skills load, both versions when they differ).
 */
import { clientProfile } from "../mcp/catalog/client-profiles.ts";
import { instructionsFor, serverInstructions, waitsForSkills } from "../mcp/instructions.ts";
import { listPrompts } from "../mcp/prompt-listing.ts";
import type { RegistrySource } from "../mcp/registry-source.ts";
import { listTools } from "../mcp/tool-listing.ts";
import { planFor } from "../mcp/tools.ts";
import type { Registry } from "../registry/registry.ts";
import type { ClientView } from "./wire.ts";

export async function clientView(
  source: RegistrySource,
  registry: Registry,
  client: { label: string; name?: string },
  live: boolean,
): Promise<ClientView> {
  const profile = clientProfile(client.name === undefined ? undefined : { name: client.name }, undefined);
  const settings = source.catalogSettings();
  const plan = planFor(registry, settings, profile);
  const instructions = await instructionsFor(source, profile, { live });
  const early = waitsForSkills(profile) ? instructions : serverInstructions({ live });
  return {
    label: client.label,
    ...(client.name !== undefined && { name: client.name }),
    promptsShown: profile.prompts,
    capped: profile.capped,
    toolCap: settings.toolCap,
    plan: { catalog: plan.catalog, run: plan.run, toolSkills: plan.toolSkills, why: plan.why },
    prompts: listPrompts(registry).prompts.map((p) => ({ name: p.name, description: p.description ?? "" })),
    tools: listTools(registry, plan).map((t) => ({ name: t.name, description: t.description ?? "" })),
    instructions,
    ...(early !== instructions && { instructionsBeforeLoad: early }),
  };
}
