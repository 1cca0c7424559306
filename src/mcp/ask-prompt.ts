/** The form for a prompt's missing arguments (or `skills:compose`'s tags), and checking what the person answered. */
import type { GetPromptResult } from "@modelcontextprotocol/server";
import { SkillCentralError } from "../errors.ts";
import { COMPOSE_PROMPT_NAME } from "../invoke/compose.ts";
import type { Registry } from "../registry/registry.ts";
import { fieldOfPromptArgument, type FormField } from "../skill/form-fields.ts";
import type { SkillArgument } from "../skill/skill.ts";
import { parseTagList } from "../skill/tags.ts";
import type { MissingArguments } from "./ask-missing.ts";

/** Known tags named in the form's `tags` field, as many as the compose prompt's description names. */
const TAGS_IN_FIELD = 30;

/** Today's error, with why the form did not help; anything that is not ours passes unchanged. */
function withReason(error: unknown, reason: string): unknown {
  return error instanceof SkillCentralError ? new SkillCentralError(error.code, `${error.message} (${reason})`) : error;
}

type Render = (args: Record<string, string>) => GetPromptResult;
/** The problem with one answered value, or undefined when it may be rendered. */
type Check = (name: string, value: unknown) => string | undefined;

function promptAsk(
  target: string,
  args: Readonly<Record<string, string>>,
  missing: readonly string[],
  fields: Record<string, FormField>,
  check: Check,
  render: Render,
): MissingArguments<GetPromptResult> {
  return {
    method: "prompts/get",
    target,
    missing,
    fields,
    message: `"${target}" needs ${missing.length === 1 ? "an argument" : "arguments"} the request left out.`,
    async attempt(values, asked) {
      // Each answer is validated whether or not the retry also re-sent that argument: an answer
      // replaces it, so nothing unchecked reaches the template.
      const problems: string[] = [];
      const answered: Record<string, string> = {};
      for (const name of asked) {
        const value = values[name];
        const problem = check(name, value);
        if (problem !== undefined) problems.push(problem);
        else if (typeof value === "string") answered[name] = value;
      }
      return problems.length > 0 ? { problems } : { answer: render({ ...args, ...answered }) };
    },
    async refuse(reason) {
      try {
        return render({ ...args });
      } catch (error) {
        throw withReason(error, reason);
      }
    },
  };
}

function composeTagsField(registry: Registry): FormField {
  const tags = registry.tags();
  const known =
    tags.length === 0
      ? ""
      : ` Known tags: ${tags.slice(0, TAGS_IN_FIELD).join(", ")}${tags.length > TAGS_IN_FIELD ? ", …" : ""}.`;
  return {
    type: "string",
    title: "tags",
    description: `Comma-separated tags, e.g. "kmp,android".${known}`,
    minLength: 1,
  };
}

/** A prompt argument's answer: text (what `prompts/get` carries), one of its choices when it lists them. */
function argumentCheck(declared: readonly SkillArgument[]): Check {
  return (name, value) => {
    const argument = declared.find((a) => a.name === name);
    if (value === undefined || value === null) return `Missing required argument: "${name}"`;
    if (typeof value !== "string") return `Argument "${name}" must be text`;
    if (argument?.enum && !argument.enum.includes(value))
      return `Argument "${name}" must be one of: ${argument.enum.join(", ")}`;
    return undefined;
  };
}

const tagsCheck: Check = (_name, value) =>
  typeof value === "string" && parseTagList(value).length > 0
    ? undefined
    : 'Argument "tags" must name at least one tag, e.g. "kmp,android"';

/**
 * What a `prompts/get` would ask for: the required arguments of a prompt skill that the request
 * left out, or the `tags` of `skills:compose`; undefined when nothing is missing (or the name is
 * unknown: today's error says so).
 */
export function missingPromptArguments(
  registry: Registry,
  name: string,
  args: Readonly<Record<string, string>>,
  render: Render,
): MissingArguments<GetPromptResult> | undefined {
  if (name === COMPOSE_PROMPT_NAME) {
    if (parseTagList(args.tags ?? "").length > 0) return undefined;
    return promptAsk(name, args, ["tags"], { tags: composeTagsField(registry) }, tagsCheck, render);
  }
  const skill = registry.get(name)?.skill;
  if (skill?.type !== "prompt") return undefined;
  const required = skill.arguments.filter((a) => a.required);
  const missing = required.filter((a) => args[a.name] === undefined || args[a.name] === null).map((a) => a.name);
  if (missing.length === 0) return undefined;
  const fields = Object.fromEntries(required.map((a) => [a.name, fieldOfPromptArgument(a)]));
  return promptAsk(name, args, missing, fields, argumentCheck(skill.arguments), render);
}
