/** `skills:compose`: the prompt skills a set of tags selects, joined lowest priority first, as one prompt. */
import { quoted, SkillCentralError } from "../errors.ts";
import { checkPromptArguments, LIMITS, ownArguments, resultTooLarge } from "./limits.ts";
import type { Candidate, Registry } from "../registry/registry.ts";
import type { PromptArguments, RenderedPrompt } from "./render-prompt.ts";
import { renderSkill } from "./render-prompt.ts";

export const COMPOSE_PROMPT_NAME = "skills:compose";
export const COMPOSE_SEPARATOR = "\n\n---\n\n";

export interface ComposedPrompt extends RenderedPrompt {
  /** The composed skills' ids, in the order they appear. */
  skills: string[];
}

/** Lowest priority first (foundations before specialisations), then by id. */
function compositionOrder(a: Candidate, b: Candidate): number {
  return a.layer.priority - b.layer.priority || (a.skill.id < b.skill.id ? -1 : 1);
}

/** The prompt skills `tags` select, in the order `compose` joins them. */
export function composedSkills(registry: Registry, tags: readonly string[]): Candidate[] {
  const matched = new Set<Candidate>();
  for (const tag of tags) for (const c of registry.promptsTagged(tag)) matched.add(c);
  return [...matched].sort(compositionOrder);
}

/**
 * Required arguments of composed skills that `args` leaves out or empty: `compose` renders them
 * blank (it is asked for by topic, and a client only knows to ask for `tags`), so the CLI warns.
 * Not computed on the server's path: a prompts/get result has no place for a warning.
 */
export function emptyRequiredArguments(
  skills: readonly Candidate[],
  args: Readonly<Record<string, unknown>>,
): { skill: string; argument: string }[] {
  const empty: { skill: string; argument: string }[] = [];
  for (const c of skills) {
    for (const a of c.skill.arguments) {
      const value = Object.hasOwn(args, a.name) ? args[a.name] : undefined;
      if (a.required && (value === undefined || value === null || value === ""))
        empty.push({ skill: c.skill.id, argument: a.name });
    }
  }
  return empty;
}

/**
 * Joins every effective prompt skill whose tags overlap `tags`. The other arguments are given to
 * every template; a composed skill's required arguments are not enforced, since composition is
 * asked for by topic, not by skill.
 */
export function compose(registry: Registry, tags: readonly string[], args: PromptArguments = {}): ComposedPrompt {
  if (tags.length === 0) {
    throw new SkillCentralError(
      "tags-required",
      'skills:compose needs a "tags" argument: a comma-separated list of tags, e.g. "kmp,android"',
    );
  }
  const ordered = composedSkills(registry, tags);
  if (ordered.length === 0)
    throw new SkillCentralError("no-skills-for-tags", `No skills found for tags: ${quoted(tags.join(", "))}`);
  checkPromptArguments(args);
  const data = ownArguments(args);
  const sections: string[] = [];
  let chars = 0;
  for (const c of ordered) {
    const section = `## ${c.skill.id}\n${renderSkill(c, data).trim()}`;
    chars += section.length + COMPOSE_SEPARATOR.length;
    if (chars > LIMITS.resultChars) throw resultTooLarge(chars);
    sections.push(section);
  }
  const text = sections.join(COMPOSE_SEPARATOR);
  const count = `${ordered.length} skill${ordered.length === 1 ? "" : "s"}`;
  return {
    description: `Composed prompt from tags: ${tags.join(", ")} (${count})`,
    text,
    skills: ordered.map((c) => c.skill.id),
  };
}
