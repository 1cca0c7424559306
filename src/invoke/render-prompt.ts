/** A prompt skill rendered with its arguments, in its own format's way (Handlebars, or an Agent Skills body). */
import { quoted, SkillCentralError } from "../errors.ts";
import { checkPromptArguments, checkResult, ownArguments } from "./limits.ts";
import { dirname } from "node:path";
import { isEmbedded } from "../storage/fs-state.ts";
import type { Candidate, Registry } from "../registry/registry.ts";
import type { Skill } from "../skill/skill.ts";
import { renderSkillMdBody } from "./skill-md-body.ts";
import { renderTemplate } from "./template-cache.ts";

export type PromptArguments = Readonly<Record<string, unknown>>;

export interface RenderedPrompt {
  description: string;
  text: string;
}

export function missingRequired(skill: Skill, args: PromptArguments): string | undefined {
  return skill.arguments.find((a) => a.required && (args[a.name] === undefined || args[a.name] === null))?.name;
}

/** Renders a prompt skill; a declared required argument must be present. */
export function renderPrompt(registry: Registry, id: string, args: PromptArguments = {}): RenderedPrompt {
  const candidate = registry.get(id);
  const skill = candidate?.skill;
  if (!candidate || !skill || skill.type !== "prompt")
    throw new SkillCentralError("unknown-prompt", `Unknown prompt skill: ${quoted(id)}`);
  checkPromptArguments(args);
  const own = ownArguments(args);
  const missing = missingRequired(skill, own);
  if (missing !== undefined) throw new SkillCentralError("missing-argument", `Missing required argument: "${missing}"`);
  return { description: skill.description, text: checkResult(renderSkill(candidate, own)) };
}

/** A prompt skill's text with `data`, in its own format's way (Handlebars, or an Agent Skills body). */
export function renderSkill(candidate: Candidate, data: Record<string, unknown>): string {
  const content = candidate.content.read();
  if (candidate.skill.format === "skill-md") {
    // Prompt arguments are strings (prompts/get carries nothing else).
    // A folder inside the binary has no path a host could open: the placeholder stays as written.
    const dir = dirname(candidate.path);
    return renderSkillMdBody(
      content.template ?? "",
      candidate.skill,
      data as Record<string, string>,
      isEmbedded(dir) ? undefined : dir,
    );
  }
  return renderTemplate(content, data);
}
