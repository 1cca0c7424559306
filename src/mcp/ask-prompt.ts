import type { GetPromptResult } from "@modelcontextprotocol/server";
import { SkillCentralError } from "../errors.ts";
import { COMPOSE_PROMPT_NAME } from "../invoke/compose.ts";
import type { Registry } from "../registry/registry.ts";
import { fieldOfPromptArgument, type FormField } from "../skill/form-fields.ts";
import { parseTagList } from "../skill/tags.ts";
import type { MissingArguments } from "./ask-missing.ts";

/** Known tags named in the form's `tags` field, as many as the compose prompt's description names. */
const TAGS_IN_FIELD = 30;

/** Today's error, with why the form did not help; anything that is not ours passes unchanged. */
function withReason(error: unknown, reason: string): unknown {
  return error instanceof SkillCentralError ? new SkillCentralError(error.code, `${error.message} (${reason})`) : error;
}

type Render = (args: Record<string, string>) => GetPromptResult;

function promptAsk(
  target: string,
  args: Readonly<Record<string, string>>,
  fields: Record<string, FormField>,
  check: (values: Record<string, unknown>) => string[],
  render: Render,
): MissingArguments<GetPromptResult> {
  return {
    method: "prompts/get",
    target,
    fields,
    message: `"${target}" needs ${Object.keys(fields).length === 1 ? "an argument" : "arguments"} the request left out.`,
    async attempt(values) {
      const problems = check(values);
      return problems.length > 0
        ? { problems }
        : { answer: render({ ...args, ...(values as Record<string, string>) }) };
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
    const check = (values: Record<string, unknown>) =>
      typeof values.tags === "string" && parseTagList(values.tags).length > 0
        ? []
        : ['Argument "tags" must name at least one tag, e.g. "kmp,android"'];
    return promptAsk(name, args, { tags: composeTagsField(registry) }, check, render);
  }
  const skill = registry.get(name)?.skill;
  if (skill?.type !== "prompt") return undefined;
  const missing = skill.arguments.filter((a) => a.required && (args[a.name] === undefined || args[a.name] === null));
  if (missing.length === 0) return undefined;
  const check = (values: Record<string, unknown>) =>
    missing.flatMap((a) => {
      const value = values[a.name];
      if (typeof value !== "string") return [`Argument "${a.name}" must be text`];
      if (a.enum && !a.enum.includes(value)) return [`Argument "${a.name}" must be one of: ${a.enum.join(", ")}`];
      return [];
    });
  return promptAsk(
    name,
    args,
    Object.fromEntries(missing.map((a) => [a.name, fieldOfPromptArgument(a)])),
    check,
    render,
  );
}
