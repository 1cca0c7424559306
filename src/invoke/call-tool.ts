/** `tools/call` for a tool skill: its arguments validated (on the worker when a pattern needs it), then its template rendered. */
import { quoted, SkillCentralError } from "../errors.ts";
import { isPlainObject, type JsonSchema } from "../skill/json-schema.ts";
import { guardedArgumentProblems } from "./guarded-validation.ts";
import { checkArguments, checkResult, LIMITS, ownArguments } from "./limits.ts";
import { needsGuard } from "./pattern-safety.ts";
import type { Registry } from "../registry/registry.ts";
import { argumentProblems, problemLines, type ArgumentProblem } from "./arguments.ts";
import { renderTemplate } from "./template-cache.ts";

/**
 * The problems with a tool skill's arguments (own keys only, as a call reads them). Synchronous
 * unless the schema has a pattern that must be checked on the worker thread.
 */
export function toolArgumentProblems(
  schema: JsonSchema,
  data: unknown,
): ArgumentProblem[] | Promise<ArgumentProblem[]> {
  // A pattern that may backtrack catastrophically is run where a time limit can stop it.
  return needsGuard(schema) ? guardedArgumentProblems(schema, data) : argumentProblems(schema, data);
}

/** A call's answer, or its argument problems as the lines of the error text. */
export type ToolOutcome = { ok: true; text: string } | { ok: false; problems: string[] };

/**
 * Validates arguments against the tool's schema, then renders its template (or, for a tool
 * without one, echoes the validated arguments as JSON). Invalid arguments are an outcome, not an
 * exception: MCP reports them as a tool result with `isError`.
 *
 * Synchronous unless the schema has a pattern that must be checked on the worker thread
 * (guarded-validation.ts): the common call costs no extra turn of the event loop, and answers
 * keep the order requests came in.
 */
export function callTool(registry: Registry, id: string, args: unknown = {}): ToolOutcome | Promise<ToolOutcome> {
  const candidate = registry.get(id);
  const skill = candidate?.skill;
  if (!candidate || !skill || skill.type !== "tool" || !skill.inputSchema)
    throw new SkillCentralError("unknown-tool", `Unknown tool: ${quoted(id)}`);
  const chars = checkArguments(args);
  const data = isPlainObject(args) ? ownArguments(args) : args;
  const finish = (problems: ArgumentProblem[]): ToolOutcome => {
    if (problems.length > 0) return { ok: false, problems: problemLines(problems) };
    const content = candidate.content.read();
    // Indentation grows with depth: large arguments are echoed compact, so a reply stays linear in them.
    const text =
      content.template === undefined
        ? JSON.stringify(data, null, chars <= LIMITS.prettyEchoChars ? 2 : undefined)
        : renderTemplate(content, data as Record<string, unknown>);
    return { ok: true, text: checkResult(text) };
  };
  const problems = toolArgumentProblems(skill.inputSchema, data);
  return problems instanceof Promise ? problems.then(finish) : finish(problems);
}
