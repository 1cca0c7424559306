import { GetPromptRequestParamsSchema, PaginatedRequestParamsSchema } from "@modelcontextprotocol/core";
import {
  type GetPromptResult,
  isInputRequiredResult,
  type ListPromptsResult,
  type Prompt,
} from "@modelcontextprotocol/server";
import type { Registry } from "../registry/registry.ts";
import { COMPOSE_PROMPT_NAME, composedSkills } from "../invoke/compose.ts";
import { parseTagList } from "../skill/tags.ts";
import type { UseOutcome } from "../storage/usage-store.ts";
import { getPrompt } from "../invoke/get-prompt.ts";
import { declinesNoted, withMissingAsked } from "./ask-missing.ts";
import { missingPromptArguments } from "./ask-prompt.ts";
import type { Feature, SkillUseVia } from "./feature.ts";
import { paginate } from "./pagination.ts";
import type { RegistrySource } from "./registry-source.ts";
import { handle } from "./request-handler.ts";
import { DEPRECATED_META_KEY, deprecationsOf, reportUse } from "./skill-use.ts";
import { perSnapshot } from "../registry/per-snapshot.ts";

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

export function listPromptsPage(
  registry: Registry,
  cursor: string | undefined,
  pageSize: number | undefined,
): ListPromptsResult {
  const page = paginate(listPrompts(registry).prompts, (p) => p.name, "prompts/list", cursor, pageSize);
  return { prompts: page.items, ...(page.nextCursor !== undefined && { nextCursor: page.nextCursor }) };
}

function userMessage(description: string, text: string): GetPromptResult {
  return { description, messages: [{ role: "user", content: { type: "text", text } }] };
}

/**
 * The skills a `prompts/get` uses: the prompt skill it names, or each one `skills:compose` joins
 * (the server's own prompt is not a skill).
 */
function promptUses(registry: Registry, name: string, args: Record<string, string>): [string, SkillUseVia][] {
  if (name !== COMPOSE_PROMPT_NAME) return [[name, "prompts/get"]];
  return composedSkills(registry, parseTagList(args.tags ?? "")).map((c) => [c.skill.id, "skills:compose"]);
}

export function getPromptResult(registry: Registry, name: string, args: Record<string, string> = {}): GetPromptResult {
  const rendered = getPrompt(registry, name, args);
  const result = userMessage(rendered.description, rendered.text);
  // A prompt skill's description already leads with its notice; a composition names each joined one's.
  const notices = deprecationsOf(
    registry,
    promptUses(registry, name, args).map(([id]) => id),
  );
  if (Object.keys(notices).length === 0) return result;
  const description =
    name === COMPOSE_PROMPT_NAME ? `${result.description} (${Object.values(notices).join("; ")})` : result.description;
  return { ...result, ...(description !== undefined && { description }), _meta: { [DEPRECATED_META_KEY]: notices } };
}

export const promptsFeature: Feature = {
  name: "prompts",
  capabilities: ({ live }) => ({ prompts: { listChanged: live } }),
  register(server, source: RegistrySource, { onUse }) {
    handle(server, "prompts/list", PaginatedRequestParamsSchema, async (params) =>
      listPromptsPage(await source.current(), params.cursor, source.pageSize()),
    );
    handle(server, "prompts/get", GetPromptRequestParamsSchema, async (params, ctx) => {
      const registry = await source.current();
      const args = params.arguments ?? {};
      const render = (values: Record<string, string>) => getPromptResult(registry, params.name, values);
      let declined = false;
      const ask = declinesNoted(missingPromptArguments(registry, params.name, args, render), () => {
        declined = true;
      });
      const used = (outcome: UseOutcome) => {
        for (const [skill, via] of promptUses(registry, params.name, args))
          reportUse(onUse, server, ctx, registry, skill, via, outcome);
      };
      let result: Awaited<ReturnType<typeof withMissingAsked<GetPromptResult>>>;
      try {
        result = await withMissingAsked(server, ctx, source.elicitation(), ask, () =>
          getPromptResult(registry, params.name, params.arguments),
        );
      } catch (error) {
        if (onUse !== undefined) used(declined ? "declined" : "error");
        throw error;
      }
      // Counted once answered (not while a form is out).
      if (isInputRequiredResult(result)) return result;
      if (onUse !== undefined) used("ok");
      return result;
    });
  },
  lists: [{ kind: "prompts", entries: (registry) => listPrompts(registry).prompts }],
};
