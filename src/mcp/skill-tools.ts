/** `tools/call` of a tool skill, listed or behind `run_skill_tool`, and the annotations every skill tool carries. */
import type { CallToolResult, ToolAnnotations } from "@modelcontextprotocol/server";
import { callTool, type ToolOutcome } from "../invoke/call-tool.ts";
import type { Registry } from "../registry/registry.ts";

/**
 * A skill tool renders text from its arguments and touches nothing else: read-only, so plan
 * modes can allow it without asking; repeatable; no outside world involved. The catalog tools
 * only read too.
 */
export const TOOL_ANNOTATIONS: ToolAnnotations = Object.freeze({
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
});

function toolResult(outcome: ToolOutcome): CallToolResult {
  return outcome.ok
    ? { content: [{ type: "text", text: outcome.text }] }
    : { content: [{ type: "text", text: outcome.problems.join("\n") }], isError: true };
}

/**
 * `tools/call` of a tool skill, whether it is listed to the client or behind `run_skill_tool`:
 * one path, so both give the same validation messages.
 */
export function runTool(registry: Registry, name: string, args: unknown): CallToolResult | Promise<CallToolResult> {
  const outcome = callTool(registry, name, args ?? {});
  return outcome instanceof Promise ? outcome.then(toolResult) : toolResult(outcome);
}
