/**
 * Calling a skill the way the server does (`prompts/get`, `tools/call`), through the same render
 * functions, for everything that is not the server: inline examples, `render`, the public API.
 * Failures are values carrying the server's exact message, so callers compare or print them.
 */
import { SkillCentralError } from "../errors.ts";
import type { Registry } from "../registry/registry.ts";
import { callTool } from "./call-tool.ts";
import { getPrompt } from "./get-prompt.ts";

export type Invocation = { ok: true; text: string } | { ok: false; error: SkillCentralError };

function failure(error: unknown): Invocation {
  if (error instanceof SkillCentralError) return { ok: false, error };
  const message = error instanceof Error ? error.message : String(error);
  return { ok: false, error: new SkillCentralError("render-failed", message) };
}

/** `prompts/get` carries only strings: anything else is refused as the server's params check would. */
function nonStringArgument(args: Readonly<Record<string, unknown>>): string | undefined {
  return Object.keys(args).find((key) => typeof args[key] !== "string");
}

/** `prompts/get`: a prompt skill by id, or `skills:compose` with its `tags` argument. */
export function invokePrompt(
  registry: Registry,
  name: string,
  args: Readonly<Record<string, unknown>> = {},
): Invocation {
  const wrong = nonStringArgument(args);
  if (wrong !== undefined) {
    return failure(
      new SkillCentralError(
        "invalid-params",
        `Invalid params for prompts/get: arguments.${wrong}: prompt arguments must be strings`,
      ),
    );
  }
  const strings = args as Readonly<Record<string, string>>;
  try {
    return { ok: true, text: getPrompt(registry, name, strings).text };
  } catch (error) {
    return failure(error);
  }
}

/** `tools/call`: validation problems become one error whose message is the result's text. */
export async function invokeTool(registry: Registry, id: string, args: unknown = {}): Promise<Invocation> {
  try {
    const outcome = await callTool(registry, id, args);
    if (outcome.ok) return { ok: true, text: outcome.text };
    return failure(new SkillCentralError("invalid-arguments", outcome.problems.join("\n"), outcome.problems));
  } catch (error) {
    return failure(error);
  }
}

/** Whichever of the two the id names; `skills:compose` is a prompt. */
export async function invokeSkill(
  registry: Registry,
  id: string,
  args: Readonly<Record<string, unknown>> = {},
): Promise<Invocation> {
  return registry.get(id)?.skill.type === "tool" ? invokeTool(registry, id, args) : invokePrompt(registry, id, args);
}
