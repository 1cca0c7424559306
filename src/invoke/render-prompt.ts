import { quoted, SkillCentralError } from "../errors.ts";
import { checkPromptArguments, checkResult, ownArguments } from "./limits.ts";
import type { Registry } from "../registry/registry.ts";
import type { Skill } from "../skill/skill.ts";
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
  if (!candidate || !skill || skill.type !== "prompt") throw new SkillCentralError("unknown-prompt", `Unknown prompt skill: ${quoted(id)}`);
  checkPromptArguments(args);
  const own = ownArguments(args);
  const missing = missingRequired(skill, own);
  if (missing !== undefined) throw new SkillCentralError("missing-argument", `Missing required argument: "${missing}"`);
  return { description: skill.description, text: checkResult(renderTemplate(candidate.content.read(), own)) };
}
