/**
 * The text of the `instructions` a client is given: the plain version, and the catalog's, which
 * names as many skills as fit. Which one a client gets is instructions.ts's to decide; the token
 * budget (catalog/sent-parts.ts) counts the very same text.
 */
import { COMPOSE_PROMPT_NAME } from "../invoke/compose.ts";
import { modelMayUse } from "../invoke/load-skill.ts";
import { perSnapshot } from "../registry/per-snapshot.ts";
import type { Candidate, Registry } from "../registry/registry.ts";
import { FIND_SKILLS, LOAD_SKILL, planKey, RUN_SKILL_TOOL, type ToolsPlan } from "./catalog/mode.ts";
import type { ClientProfile } from "./catalog/client-profiles.ts";
import { REGISTRY_URI, SKILL_URI_TEMPLATE } from "./resources.ts";

/**
 * Claude Code cuts a server's instructions at 2,048 characters, and clients put them in every
 * request's context: everything we say fits in this many.
 */
export const INSTRUCTIONS_BUDGET = 2000;
/** A highlighted skill's description is cut here: the name and what it is for, not how. */
const HIGHLIGHT_CHARS = 90;
// True of a watching server and of a governed `--no-watch` one (the admin log changes what it serves).
const WATCHED = "The lists can change while the server runs: list_changed notifications are sent when they do.";

/**
 * The `initialize` (and `server/discover`) result's `instructions` for a client that sees
 * prompts and tools as they are: what the server offers and how to use it.
 */
export function serverInstructions(options: { live: boolean }): string {
  return [
    "skill-central serves a team's reusable skills, written as YAML files in layered folders:",
    "prompt skills are MCP prompts (prompts/list, prompts/get); tool skills are MCP tools that render text and change nothing (tools/list, tools/call).",
    `To combine every prompt skill on a topic, get the prompt "${COMPOSE_PROMPT_NAME}" with "tags" set to comma-separated tags, e.g. "kmp,android"; completion/complete on that argument offers the known tags.`,
    `Resources: ${REGISTRY_URI} lists every skill with the layer and file it comes from; ${SKILL_URI_TEMPLATE} shows one skill and why it won over other layers.`,
    "Prompt skills are also published through the MCP skills extension (skills/list, skills/get; each file a skill://<name>/<path> resource).",
    ...(options.live ? [WATCHED] : []),
  ].join(" ");
}

/** The first sentence of a description, cut to `max` characters. */
function gist(description: string, max: number): string {
  const line = description.replace(/\s+/g, " ").trim();
  const sentence = /^(.+?[.!?])(\s|$)/.exec(line)?.[1] ?? line;
  return sentence.length <= max ? sentence.replace(/[.!?]$/, "") : `${sentence.slice(0, max - 1)}…`;
}

/**
 * The skills worth naming up front: those this client can reach only through the catalog, the
 * team's own before the built-in ones (higher layer priority first), then by name.
 */
function highlights(registry: Registry, plan: ToolsPlan, client: ClientProfile): Candidate[] {
  const onlyThroughCatalog = (c: Candidate) =>
    c.skill.type === "prompt" ? client.prompts !== "shown" || plan.prompts === false : !plan.toolSkills;
  const usable = registry.served().filter(modelMayUse);
  const first = usable.filter(onlyThroughCatalog);
  const rest = usable.filter((c) => !onlyThroughCatalog(c));
  const order = (a: Candidate, b: Candidate) =>
    b.layer.priority - a.layer.priority || (a.skill.id < b.skill.id ? -1 : 1);
  return [...first.sort(order), ...rest.sort(order)];
}

/** Built once per snapshot, plan and kind of client. */
const catalogTextOf = perSnapshot(() => new Map<string, string>());

/**
 * The instructions for a client offered the catalog tools: how to find, read and run skills,
 * then as many skills by name as fit the budget.
 */
export function catalogInstructions(
  registry: Registry,
  plan: ToolsPlan,
  client: ClientProfile,
  options: { live: boolean },
): string {
  const key = `${planKey(plan)}|${client.prompts}|${options.live}`;
  const cache = catalogTextOf(registry);
  const cached = cache.get(key);
  if (cached !== undefined) return cached;
  const head = [
    "skill-central serves the team's reusable skills: prompts (instructions and checklists to follow) and tools.",
    `Before a task the team may have a skill for, call ${FIND_SKILLS} with a few words about it; read a skill with ${LOAD_SKILL} {"name"} (a prompt comes back as instructions to follow; pass "arguments" as text; a skill folder also lists files to read with "path").`,
    plan.run ? `Tool skills not listed as tools run through ${RUN_SKILL_TOOL} {"name", "arguments"}.` : "",
  ]
    .filter(Boolean)
    .join(" ");
  const tail = options.live ? ` ${WATCHED}` : "";
  const candidates = highlights(registry, plan, client);
  let list = "";
  let named = 0;
  const room = INSTRUCTIONS_BUDGET - head.length - tail.length - 80;
  for (const c of candidates) {
    const entry = `${named === 0 ? "" : "; "}${c.skill.id} (${gist(c.skill.description, HIGHLIGHT_CHARS)})`;
    if (list.length + entry.length > room) break;
    list += entry;
    named++;
  }
  const more = candidates.length - named;
  const skills =
    named === 0
      ? ""
      : ` Skills include: ${list}${more > 0 ? `; and ${more} more (${FIND_SKILLS} lists them all).` : "."}`;
  const text = head + skills + tail;
  cache.set(key, text);
  return text;
}
