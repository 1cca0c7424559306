/**
 * Which skill a request used, and how it ended, told to the server's `onUse` hook (usage history,
 * metrics). Handlers call it once a request is answered (not while a form is out), for ids the
 * registry serves only: an unknown name is never recorded, so what is kept stays bounded by the
 * skills. A deprecated skill's notice is carried by each result that used it, once.
 */
import type { CallToolResult, Server, ServerContext } from "@modelcontextprotocol/server";
import type { Registry } from "../registry/registry.ts";
import { deprecationNotice } from "../skill/skill.ts";
import type { UseOutcome } from "../storage/usage-store.ts";
import { requestClient } from "./catalog/mode.ts";
import type { OnSkillUse, SkillUseVia } from "./feature.ts";

/** The key of the deprecation notice in a result's `_meta`. */
export const DEPRECATED_META_KEY = "dev.skill-central/deprecated";

/** Tells `onUse` of one use of `skill`, when the registry serves it. */
export function reportUse(
  onUse: OnSkillUse | undefined,
  server: Server,
  ctx: ServerContext | undefined,
  registry: Registry,
  skill: string,
  via: SkillUseVia,
  outcome: UseOutcome,
): void {
  if (onUse === undefined) return;
  const candidate = registry.get(skill);
  if (candidate === undefined) return;
  const client = requestClient(server, ctx).name;
  onUse({ skill, layer: candidate.layer.name, via, outcome, ...(client !== undefined && { client }) });
}

/** The deprecation notices of `skills` that are deprecated, by id. */
export function deprecationsOf(registry: Registry, skills: readonly string[]): Record<string, string> {
  const notices: Record<string, string> = {};
  for (const id of skills) {
    const deprecated = registry.get(id)?.skill.deprecated;
    if (deprecated !== undefined) notices[id] = deprecationNotice(id, deprecated);
  }
  return notices;
}

/** A tool result that used `skill`, with its deprecation notice added once (as the last text, and in `_meta`). */
export function withDeprecation(result: CallToolResult, registry: Registry, skill: string | undefined): CallToolResult {
  if (skill === undefined) return result;
  const notices = deprecationsOf(registry, [skill]);
  const notice = notices[skill];
  if (notice === undefined || result._meta?.[DEPRECATED_META_KEY] !== undefined) return result;
  return {
    ...result,
    content: [...result.content, { type: "text", text: `Note: ${notice}` }],
    _meta: { ...result._meta, [DEPRECATED_META_KEY]: notices },
  };
}
