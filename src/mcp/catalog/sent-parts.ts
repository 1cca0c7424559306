/**
 * What a client is sent to learn the catalog, part by part, as the server sends it: the
 * `initialize` instructions, each `tools/list` entry and, for a client that shows prompts, each
 * `prompts/list` entry, from the very builders the handlers use (instruction-text.ts,
 * tool-listing.ts, prompt-listing.ts), each entry as its JSON. `skill-central budget` counts them
 * all; the token budget (token-budget.ts) stops as soon as the answer is sure.
 */
import type { Registry } from "../../registry/registry.ts";
import type { ToolsPlan } from "./mode.ts";
import type { ClientProfile } from "./client-profiles.ts";
import { catalogInstructions, serverInstructions } from "../instruction-text.ts";
import { listPrompts } from "../prompt-listing.ts";
import { listTools } from "../tool-listing.ts";

export interface SentPart {
  /** The skill this part describes; undefined for the server's own text and tools. */
  skill?: string;
  where: "instructions" | "tools/list" | "prompts/list";
  text: string;
}

/** Whether a client reads `prompts/list`: one that shows prompts, or one that says nothing (served them as before). */
export function readsPrompts(client: ClientProfile): boolean {
  return client.prompts !== "not-shown";
}

/** Each list's own JSON around its entries: `{"tools":[` … `]}` and the commas between entries. */
function envelope(key: string, entries: number, where: SentPart["where"]): SentPart {
  return { where, text: `{"${key}":[]}${",".repeat(Math.max(0, entries - 1))}` };
}

/** The parts, lazily: a caller that has its answer stops reading (and serialising). */
export function* sentParts(
  registry: Registry,
  plan: ToolsPlan,
  client: ClientProfile,
  options: { live: boolean },
): Generator<SentPart> {
  yield {
    where: "instructions",
    text: plan.catalog ? catalogInstructions(registry, plan, client, options) : serverInstructions(options),
  };
  const isSkill = (name: string) => registry.get(name) !== undefined;
  const tools = listTools(registry, plan);
  yield envelope("tools", tools.length, "tools/list");
  for (const tool of tools)
    yield { ...(isSkill(tool.name) && { skill: tool.name }), where: "tools/list", text: JSON.stringify(tool) };
  if (!readsPrompts(client) || plan.prompts === false) return;
  const prompts = listPrompts(registry).prompts;
  yield envelope("prompts", prompts.length, "prompts/list");
  for (const prompt of prompts)
    yield {
      ...(isSkill(prompt.name) && { skill: prompt.name }),
      where: "prompts/list",
      text: JSON.stringify(prompt),
    };
}
