import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { GetPromptRequestSchema, ListPromptsRequestSchema, type GetPromptResult, type ListPromptsResult } from "@modelcontextprotocol/sdk/types.js";
import type { Registry } from "../registry/registry.ts";
import { compose, COMPOSE_PROMPT_NAME, parseTags } from "../render/compose.ts";
import { renderPrompt } from "../render/render-prompt.ts";
import type { RegistrySource } from "./registry-source.ts";
import { handle } from "./request-handler.ts";

/** Built once per registry snapshot: listing is then a lookup, whatever the skill count. */
const listings = new WeakMap<Registry, ListPromptsResult>();

export function listPrompts(registry: Registry): ListPromptsResult {
  let listing = listings.get(registry);
  if (!listing) {
    listing = {
      prompts: registry.ofType("prompt").map(({ skill }) => ({
        name: skill.id,
        description: skill.description,
        arguments: skill.arguments.map((a) => ({
          name: a.name,
          ...(a.description !== undefined && { description: a.description }),
          required: a.required,
        })),
      })),
    };
    listings.set(registry, listing);
  }
  return listing;
}

function userMessage(description: string, text: string): GetPromptResult {
  return { description, messages: [{ role: "user", content: { type: "text", text } }] };
}

export function getPrompt(registry: Registry, name: string, args: Record<string, string> = {}): GetPromptResult {
  if (name === COMPOSE_PROMPT_NAME) {
    const { tags = "", ...rest } = args;
    const composed = compose(registry, parseTags(tags), rest);
    return userMessage(composed.description, composed.text);
  }
  const rendered = renderPrompt(registry, name, args);
  return userMessage(rendered.description, rendered.text);
}

export function registerPrompts(server: Server, source: RegistrySource): void {
  handle(server, ListPromptsRequestSchema, "prompts/list", async () => listPrompts(await source.current()));
  handle(server, GetPromptRequestSchema, "prompts/get", async (request) =>
    getPrompt(await source.current(), request.params.name, request.params.arguments),
  );
}
