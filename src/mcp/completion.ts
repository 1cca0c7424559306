/** `completion/complete` for prompt arguments: a declared argument's choices, and the known tags for `skills:compose`. */
import { CompleteRequestParamsSchema } from "@modelcontextprotocol/core";
import type { CompleteResult } from "@modelcontextprotocol/server";
import { quoted, SkillCentralError } from "../errors.ts";
import { LIMITS } from "../invoke/limits.ts";
import type { Registry } from "../registry/registry.ts";
import { COMPOSE_PROMPT_NAME } from "../invoke/compose.ts";
import type { ContentSource, SkillExample } from "../skill/skill.ts";
import { normaliseTag, parseTagList } from "../skill/tags.ts";
import type { Feature } from "./feature.ts";
import type { RegistrySource } from "./registry-source.ts";
import { handle } from "./request-handler.ts";
import { listResources, SKILL_MD_URI_TEMPLATE, SKILL_URI_TEMPLATE } from "./resources.ts";

/** The protocol's cap on values per completion response. */
export const MAX_COMPLETION_VALUES = 100;

function result(values: readonly string[]): CompleteResult {
  return {
    completion: {
      values: values.slice(0, MAX_COMPLETION_VALUES),
      total: values.length,
      hasMore: values.length > MAX_COMPLETION_VALUES,
    },
  };
}

/** The entries of a sorted list that start with `prefix`: one contiguous run, found by binary search. */
export function withPrefix(sorted: readonly string[], prefix: string): readonly string[] {
  if (prefix === "") return sorted;
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (sorted[mid]! < prefix) low = mid + 1;
    else high = mid;
  }
  let end = low;
  while (end < sorted.length && sorted[end]!.startsWith(prefix)) end++;
  return sorted.slice(low, end);
}

/**
 * `tags` of `skills:compose`: completes the segment after the last comma from the known tags
 * (minus those already typed), and offers the whole argument value with that segment filled
 * in, since clients replace the value with the completion: `"kmp, and"` → `"kmp, android"`.
 */
export function completeTags(knownTags: readonly string[], value: string): string[] {
  const comma = value.lastIndexOf(",");
  const segment = value.slice(comma + 1);
  const head = value.slice(0, comma + 1) + /^\s*/.exec(segment)![0];
  const chosen = new Set(parseTagList(value.slice(0, comma + 1)));
  return withPrefix(knownTags, normaliseTag(segment))
    .filter((tag) => !chosen.has(tag))
    .map((tag) => head + tag);
}

/** A prompt argument's declared `enum:` values that start with what is typed (any case). */
export function completeEnum(values: readonly string[], value: string): string[] {
  const prefix = value.toLowerCase();
  return values.filter((v) => v.toLowerCase().startsWith(prefix));
}

/** A completion is asked for what is being typed: a value past the limit is refused, not scanned and echoed. */
function checkValue(value: string): void {
  if (value.length > LIMITS.completionChars) {
    throw new SkillCentralError(
      "limit-exceeded",
      `The value to complete is ${value.length} characters, over the ${LIMITS.completionChars}-character limit`,
    );
  }
}

export function completePromptArgument(
  registry: Registry,
  prompt: string,
  argument: string,
  value: string,
): CompleteResult {
  checkValue(value);
  if (prompt === COMPOSE_PROMPT_NAME) return result(argument === "tags" ? completeTags(registry.tags(), value) : []);
  const skill = registry.get(prompt)?.skill;
  if (skill?.type !== "prompt")
    throw new SkillCentralError("unknown-prompt", `Unknown prompt skill: ${quoted(prompt)}`);
  const declared = skill.arguments.find((a) => a.name === argument);
  if (declared === undefined) return result([]);
  return result(completeEnum(declared.enum ?? exampleValues(registry.get(prompt)!.content, argument), value));
}

/**
 * The values a skill's inline examples give an argument, in order, without repeats: what its
 * author showed it takes. Read once per content source (a reload makes new ones).
 */
const examplesByContent = new WeakMap<ContentSource, Map<string, string[]>>();

export function exampleValues(content: ContentSource, argument: string): string[] {
  let byArgument = examplesByContent.get(content);
  if (byArgument === undefined) {
    byArgument = new Map();
    let examples: readonly SkillExample[] = [];
    try {
      examples = content.read().examples;
    } catch {
      // Content that can no longer be read has no examples to offer; the request itself does not fail.
    }
    for (const example of examples) {
      for (const [name, v] of Object.entries(example.arguments ?? {})) {
        if (typeof v !== "string") continue;
        const values = byArgument.get(name) ?? [];
        if (!values.includes(v)) values.push(v);
        byArgument.set(name, values);
      }
    }
    examplesByContent.set(content, byArgument);
  }
  return byArgument.get(argument) ?? [];
}

export function completeResourceArgument(
  registry: Registry,
  uriTemplate: string,
  argument: string,
  value: string,
): CompleteResult {
  checkValue(value);
  if (uriTemplate === SKILL_URI_TEMPLATE)
    return result(argument === "id" ? withPrefix(listResources(registry).ids, value.toLowerCase()) : []);
  if (uriTemplate === SKILL_MD_URI_TEMPLATE)
    return result(argument === "name" ? withPrefix(listResources(registry).names, value.toLowerCase()) : []);
  throw new SkillCentralError(
    "invalid-params",
    `Unknown resource template: ${quoted(uriTemplate)} (this server has ${SKILL_URI_TEMPLATE} and ${SKILL_MD_URI_TEMPLATE})`,
  );
}

export const completionFeature: Feature = {
  name: "completions",
  capabilities: () => ({ completions: {} }),
  register(server, source: RegistrySource) {
    handle(server, "completion/complete", CompleteRequestParamsSchema, async (params) => {
      const registry = await source.current();
      const { ref, argument } = params;
      return ref.type === "ref/prompt"
        ? completePromptArgument(registry, ref.name, argument.name, argument.value)
        : completeResourceArgument(registry, ref.uri, argument.name, argument.value);
    });
  },
};
