import { SkillCentralError } from "../errors.ts";
import type { Registry } from "../registry/registry.ts";
import { argumentProblems } from "./arguments.ts";
import { renderTemplate } from "./template-cache.ts";

export type ToolOutcome = { ok: true; text: string } | { ok: false; problems: string[] };

/**
 * Validates arguments against the tool's schema, then renders its template (or, for a tool
 * without one, echoes the validated arguments as JSON). Invalid arguments are an outcome, not an
 * exception: MCP reports them as a tool result with `isError`.
 */
export function callTool(registry: Registry, id: string, args: unknown = {}): ToolOutcome {
  const candidate = registry.get(id);
  const skill = candidate?.skill;
  if (!candidate || !skill || skill.type !== "tool" || !skill.inputSchema) throw new SkillCentralError("unknown-tool", `Unknown tool: ${id}`);
  const problems = argumentProblems(skill.inputSchema, args);
  if (problems.length > 0) return { ok: false, problems };
  const data = args as Record<string, unknown>;
  const { template } = candidate.content.read();
  const text = template === undefined ? JSON.stringify(data, null, 2) : renderTemplate(template, data);
  return { ok: true, text };
}
