/** The form for a tool skill's missing required arguments, when each can be a form field. */
import type { CallToolResult } from "@modelcontextprotocol/server";
import { problemLines, type ArgumentProblem } from "../invoke/arguments.ts";
import { toolArgumentProblems } from "../invoke/call-tool.ts";
import { ownArguments } from "../invoke/limits.ts";
import type { Registry } from "../registry/registry.ts";
import { fieldOfProperty, propertyOf, requiredNames, type FormField } from "../skill/form-fields.ts";
import { isPlainObject } from "../skill/json-schema.ts";
import type { MissingArguments } from "./ask-missing.ts";

type Run = (args: Record<string, unknown>) => CallToolResult | Promise<CallToolResult>;

/** Today's `isError` result, with why the form did not help added to its text. */
function withReason(result: CallToolResult, reason: string): CallToolResult {
  if (!result.isError) return result;
  const content = [...result.content];
  const last = content.at(-1);
  if (last?.type === "text") content[content.length - 1] = { ...last, text: `${last.text} (${reason})` };
  return { ...result, content };
}

/**
 * What a call of the tool skill `id` would ask for: the required arguments its schema declares
 * and `args` leaves out, when every one can be a form field; undefined otherwise (nothing
 * missing, an unknown tool, or an object or array argument: today's answer). `run` calls it
 * (directly, or through `run_skill_tool`) with the arguments given.
 */
export function missingToolArguments(
  registry: Registry,
  id: string,
  args: unknown,
  run: Run,
  target: string = id,
): MissingArguments<CallToolResult> | undefined {
  const skill = registry.get(id)?.skill;
  const schema = skill?.inputSchema;
  if (schema === undefined || skill?.type !== "tool") return undefined;
  const given = args === undefined ? {} : args;
  if (!isPlainObject(given)) return undefined;
  const required = requiredNames(schema);
  const missing = required.filter((name) => !Object.hasOwn(given, name));
  if (missing.length === 0) return undefined;
  const fields: Record<string, FormField> = {};
  for (const name of required) {
    const field = fieldOfProperty(propertyOf(schema, name));
    if (field !== undefined) fields[name] = field;
  }
  if (!missing.every((name) => Object.hasOwn(fields, name))) return undefined;
  return {
    method: "tools/call",
    target,
    missing,
    fields,
    message: `"${id}" needs ${missing.length === 1 ? "an argument" : "arguments"} the call left out.`,
    async attempt(values, asked) {
      const final = { ...given, ...values };
      // The whole call is validated as any call is; the problems with what was asked for are asked again.
      let problems: ArgumentProblem[];
      try {
        problems = await toolArgumentProblems(schema, ownArguments(final));
      } catch {
        // Validation that fails outright (a pattern over its time limit) is the call's own answer.
        return { answer: await run(final) };
      }
      const about = problems.filter((p) => asked.includes(String(p.path[0])));
      return about.length > 0 ? { problems: problemLines(about) } : { answer: await run(final) };
    },
    async refuse(reason) {
      return withReason(await run({ ...given }), reason);
    },
  };
}
