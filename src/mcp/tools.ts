import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type ListToolsResult } from "@modelcontextprotocol/sdk/types.js";
import type { Registry } from "../registry/registry.ts";
import { callTool } from "../render/call-tool.ts";
import type { RegistrySource } from "./registry-source.ts";
import { handle } from "./request-handler.ts";

const listings = new WeakMap<Registry, ListToolsResult>();

export function listTools(registry: Registry): ListToolsResult {
  let listing = listings.get(registry);
  if (!listing) {
    listing = {
      tools: registry.ofType("tool").map(({ skill }) => ({
        name: skill.id,
        description: skill.description,
        inputSchema: skill.inputSchema as ListToolsResult["tools"][number]["inputSchema"],
      })),
    };
    listings.set(registry, listing);
  }
  return listing;
}

export function runTool(registry: Registry, name: string, args: unknown): CallToolResult {
  const outcome = callTool(registry, name, args ?? {});
  return outcome.ok
    ? { content: [{ type: "text", text: outcome.text }] }
    : { content: [{ type: "text", text: outcome.problems.join("\n") }], isError: true };
}

export function registerTools(server: Server, source: RegistrySource): void {
  handle(server, ListToolsRequestSchema, "tools/list", async () => listTools(await source.current()));
  handle(server, CallToolRequestSchema, "tools/call", async (request) =>
    runTool(await source.current(), request.params.name, request.params.arguments),
  );
}
