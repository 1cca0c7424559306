import { GetPromptRequestParamsSchema, PaginatedRequestParamsSchema } from "@modelcontextprotocol/core";
import { type GetPromptResult, isInputRequiredResult, type ListPromptsResult } from "@modelcontextprotocol/server";
import type { Registry } from "../registry/registry.ts";
import { getPrompt } from "../invoke/get-prompt.ts";
import { withMissingAsked } from "./ask-missing.ts";
import { missingPromptArguments } from "./ask-prompt.ts";
import type { Feature } from "./feature.ts";
import { paginate } from "./pagination.ts";
import type { RegistrySource } from "./registry-source.ts";
import { handle } from "./request-handler.ts";
import { listPrompts } from "./prompt-listing.ts";
import { requestClient } from "./catalog-mode.ts";
import { planFor } from "./tools.ts";

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

export function getPromptResult(registry: Registry, name: string, args: Record<string, string> = {}): GetPromptResult {
  const rendered = getPrompt(registry, name, args);
  return userMessage(rendered.description, rendered.text);
}

export const promptsFeature: Feature = {
  name: "prompts",
  capabilities: ({ live }) => ({ prompts: { listChanged: live } }),
  register(server, source: RegistrySource, { onUse }) {
    handle(server, "prompts/list", PaginatedRequestParamsSchema, async (params, ctx) => {
      const registry = await source.current();
      // A client over its token budget learns prompts through the catalog (catalog-budget.ts); prompts/get still answers them.
      const plan = planFor(registry, source.catalogSettings(), requestClient(server, ctx));
      return plan.prompts === false ? { prompts: [] } : listPromptsPage(registry, params.cursor, source.pageSize());
    });
    handle(server, "prompts/get", GetPromptRequestParamsSchema, async (params, ctx) => {
      const registry = await source.current();
      const args = params.arguments ?? {};
      const render = (values: Record<string, string>) => getPromptResult(registry, params.name, values);
      const ask = missingPromptArguments(registry, params.name, args, render);
      const result = await withMissingAsked(server, ctx, source.elicitation(), ask, () =>
        getPromptResult(registry, params.name, params.arguments),
      );
      // Counted once answered (not while a form is out); `skills:compose` is the server's own prompt, not a skill.
      if (onUse !== undefined && !isInputRequiredResult(result) && registry.get(params.name) !== undefined)
        onUse(params.name, "prompts/get");
      return result;
    });
  },
  lists: [{ kind: "prompts", entries: (registry) => listPrompts(registry).prompts }],
};
