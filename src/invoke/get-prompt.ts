/** What `prompts/get` returns for a name, dispatched once for the server, `render`, inline examples and the API. */
import type { Registry } from "../registry/registry.ts";
import { parseTagList } from "../skill/tags.ts";
import { compose, COMPOSE_PROMPT_NAME } from "./compose.ts";
import { renderPrompt, type RenderedPrompt } from "./render-prompt.ts";

/**
 * What `prompts/get` returns for a name: `skills:compose` (its `tags` argument selects, the rest
 * reach every template) or one prompt skill. The one dispatch shared by the server, the CLI's
 * `render`, inline examples and the public API.
 */
export function getPrompt(
  registry: Registry,
  name: string,
  args: Readonly<Record<string, string>> = {},
): RenderedPrompt {
  if (name !== COMPOSE_PROMPT_NAME) return renderPrompt(registry, name, args);
  const { tags = "", ...rest } = args;
  return compose(registry, parseTagList(tags), rest);
}
