import { COMPOSE_PROMPT_NAME } from "../invoke/compose.ts";
import { REGISTRY_URI, SKILL_URI_TEMPLATE } from "./resources.ts";

/**
 * The `initialize` result's `instructions`: what a client (and its model) should know before
 * the first request. It does not depend on the skills: `initialize` is answered before they load.
 */
export function serverInstructions(options: { live: boolean }): string {
  return [
    "skill-central serves a team's reusable skills, written as YAML files in layered folders:",
    "prompt skills are MCP prompts (prompts/list, prompts/get); tool skills are MCP tools that render text and change nothing (tools/list, tools/call).",
    `To combine every prompt skill on a topic, get the prompt "${COMPOSE_PROMPT_NAME}" with "tags" set to comma-separated tags, e.g. "kmp,android"; completion/complete on that argument offers the known tags.`,
    `Resources: ${REGISTRY_URI} lists every skill with the layer and file it comes from; ${SKILL_URI_TEMPLATE} shows one skill and why it won over other layers.`,
    ...(options.live ? ["Skill files are watched: when they change, the lists change and list_changed notifications are sent."] : []),
  ].join(" ");
}
