import type { CallToolResult } from "@modelcontextprotocol/server";
import type { Registry } from "../registry/registry.ts";
import { fieldOfProperty, propertyOf, requiredNames, type FormField } from "../skill/form-fields.ts";
import { isPlainObject } from "../skill/json-schema.ts";
import type { MissingArguments } from "./ask-missing.ts";

type Run = (args: Record<string, unknown>) => CallToolResult | Promise<CallToolResult>;

const textOf = (result: CallToolResult): string =>
  result.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");

/** A validation line about one of `names` (`Argument "x" …`, `Missing required argument: "x"`, nested `"x.y"`, `"x[0]"`). */
function concerns(line: string, names: readonly string[]): boolean {
  return names.some((name) => line.includes(`"${name}"`) || line.includes(`"${name}.`) || line.includes(`"${name}[`));
}

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
  const schema = registry.get(id)?.skill.inputSchema;
  if (schema === undefined || registry.get(id)?.skill.type !== "tool") return undefined;
  const given = args === undefined ? {} : args;
  if (!isPlainObject(given)) return undefined;
  const missing = requiredNames(schema).filter((name) => !Object.hasOwn(given, name));
  if (missing.length === 0) return undefined;
  const fields: Record<string, FormField> = {};
  for (const name of missing) {
    const field = fieldOfProperty(propertyOf(schema, name));
    if (field === undefined) return undefined;
    fields[name] = field;
  }
  return {
    method: "tools/call",
    target,
    fields,
    message: `"${id}" needs ${missing.length === 1 ? "an argument" : "arguments"} the call left out.`,
    async attempt(values) {
      const result = await run({ ...given, ...values });
      if (!result.isError) return { answer: result };
      const problems = textOf(result)
        .split("\n")
        .filter((line) => concerns(line, missing));
      return problems.length > 0 ? { problems } : { answer: result };
    },
    async refuse(reason) {
      return withReason(await run({ ...given }), reason);
    },
  };
}
