/**
 * What `prompts/list` holds, built once per snapshot: apart from the handlers (prompts.ts), so
 * the catalog's cost (catalog/sent-parts.ts) is counted from the very entries served.
 */
import type { ListPromptsResult, Prompt } from "@modelcontextprotocol/server";
import { COMPOSE_PROMPT_NAME } from "../invoke/compose.ts";
import { perSnapshot } from "../registry/per-snapshot.ts";
import type { Registry } from "../registry/registry.ts";

/** Enough known tags in the compose description to be useful without flooding a client's UI. */
const TAGS_IN_DESCRIPTION = 30;

/**
 * `skills:compose` as a listed prompt, so clients that only show what `prompts/list` returns can
 * find it. Its description names the known tags, for clients without completion support.
 */
function composePrompt(registry: Registry): Prompt {
  const tags = registry.tags();
  const known =
    tags.length === 0
      ? "No prompt skill has tags yet."
      : `Known tags: ${tags.slice(0, TAGS_IN_DESCRIPTION).join(", ")}${tags.length > TAGS_IN_DESCRIPTION ? `, … (${tags.length} in all)` : ""}.`;
  return {
    name: COMPOSE_PROMPT_NAME,
    title: "Compose skills by tags",
    description: `Every prompt skill whose tags overlap the given tags, joined into one prompt (lowest layer priority first). ${known}`,
    arguments: [{ name: "tags", description: 'Comma-separated tags, e.g. "kmp,android"', required: true }],
  };
}

/**
 * Every prompt of a snapshot, sorted by name (`skills:compose` in its sorted place, so cursors,
 * which resume after a name, work for it like for any other entry). Built once per snapshot, so
 * listing is then a lookup, whatever the skill count.
 */
export const listPrompts = perSnapshot((registry: Registry): ListPromptsResult & { prompts: Prompt[] } => {
  // `user-invocable: false` skills are not offered to a person (prompts/get still answers them).
  const prompts: Prompt[] = registry
    .ofType("prompt")
    .filter(({ skill }) => !skill.hidden)
    .map(({ skill }) => ({
      name: skill.id,
      ...(skill.title !== undefined && { title: skill.title }),
      description: skill.description,
      arguments: skill.arguments.map((a) => ({
        name: a.name,
        ...(a.description !== undefined && { description: a.description }),
        required: a.required,
      })),
    }));
  const at = prompts.findIndex((p) => p.name > COMPOSE_PROMPT_NAME);
  prompts.splice(at < 0 ? prompts.length : at, 0, composePrompt(registry));
  return { prompts };
});
