/** `prompts/list` and `prompts/get`: the prompts feature, the skills each get used, and asking for missing arguments. */
import { GetPromptRequestParamsSchema, PaginatedRequestParamsSchema } from "@modelcontextprotocol/core";
import { type GetPromptResult, isInputRequiredResult, type ListPromptsResult } from "@modelcontextprotocol/server";
import type { Registry } from "../registry/registry.ts";
import { COMPOSE_PROMPT_NAME, composedSkills } from "../invoke/compose.ts";
import { parseTagList } from "../skill/tags.ts";
import type { UseOutcome } from "../storage/usage-report.ts";
import { getPrompt } from "../invoke/get-prompt.ts";
import { declinesNoted, withMissingAsked } from "./ask-missing.ts";
import { missingPromptArguments } from "./ask-prompt.ts";
import type { Feature, SkillUseVia } from "./feature.ts";
import { paginate } from "./pagination.ts";
import type { RegistrySource } from "./registry-source.ts";
import { handle } from "./request-handler.ts";
import { listPrompts } from "./prompt-listing.ts";
import { requestClient } from "./catalog/mode.ts";
import { planFor } from "./tools.ts";
import { DEPRECATED_META_KEY, deprecationsOf, reportUse, thrownOutcome } from "./skill-use.ts";

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
    handle(server, "prompts/list", PaginatedRequestParamsSchema, async (params, ctx) => {
      const registry = await source.current();
      // A client over its token budget learns prompts through the catalog (catalog/token-budget.ts); prompts/get still answers them.
      const plan = planFor(registry, source.catalogSettings(), requestClient(server, ctx));
      return plan.prompts === false ? { prompts: [] } : listPromptsPage(registry, params.cursor, source.pageSize());
    });
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
        if (onUse !== undefined) used(declined ? "declined" : thrownOutcome(error));
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
