import { CallToolRequestParamsSchema, PaginatedRequestParamsSchema } from "@modelcontextprotocol/core";
import type { CallToolResult, ListToolsResult, Tool, ToolAnnotations } from "@modelcontextprotocol/server";
import type { Registry } from "../registry/registry.ts";
import { callTool, type ToolOutcome } from "../invoke/call-tool.ts";
import type { Feature } from "./feature.ts";
import { paginate } from "./pagination.ts";
import type { RegistrySource } from "./registry-source.ts";
import { handle } from "./request-handler.ts";
import { perSnapshot } from "../registry/per-snapshot.ts";

/**
 * A skill tool renders text from its arguments and touches nothing else: read-only, so plan
 * modes can allow it without asking; repeatable; no outside world involved.
 */
export const TOOL_ANNOTATIONS: ToolAnnotations = Object.freeze({
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
});

/** Every tool of a snapshot, sorted by name; built once per snapshot. */
export const listTools = perSnapshot((registry: Registry): ListToolsResult & { tools: Tool[] } => {
  const listing: ListToolsResult & { tools: Tool[] } = {
    tools: registry.ofType("tool").map(({ skill }) => ({
      name: skill.id,
      ...(skill.title !== undefined && { title: skill.title }),
      description: skill.description,
      inputSchema: skill.inputSchema as Tool["inputSchema"],
      annotations: TOOL_ANNOTATIONS,
    })),
  };
  return listing;
});

export function listToolsPage(registry: Registry, cursor: string | undefined, pageSize: number | undefined): ListToolsResult {
  const page = paginate(listTools(registry).tools, (t) => t.name, "tools/list", cursor, pageSize);
  return { tools: page.items, ...(page.nextCursor !== undefined && { nextCursor: page.nextCursor }) };
}

function toolResult(outcome: ToolOutcome): CallToolResult {
  return outcome.ok
    ? { content: [{ type: "text", text: outcome.text }] }
    : { content: [{ type: "text", text: outcome.problems.join("\n") }], isError: true };
}

export function runTool(registry: Registry, name: string, args: unknown): CallToolResult | Promise<CallToolResult> {
  const outcome = callTool(registry, name, args ?? {});
  return outcome instanceof Promise ? outcome.then(toolResult) : toolResult(outcome);
}

export const toolsFeature: Feature = {
  name: "tools",
  capabilities: ({ live }) => ({ tools: { listChanged: live } }),
  register(server, source: RegistrySource) {
    handle(server, "tools/list", PaginatedRequestParamsSchema, async (params) => listToolsPage(await source.current(), params.cursor, source.pageSize()));
    handle(server, "tools/call", CallToolRequestParamsSchema, async (params) => runTool(await source.current(), params.name, params.arguments));
  },
  lists: [{ kind: "tools", entries: (registry) => listTools(registry).tools }],
};
