/**
 * The catalog as one client sees it, served in-process: our own MCP server (createServer, every
 * handler as a real connection gets it) and the SDK's Client joined by an in-memory transport
 * pair, so no process is spawned per run. The client introduces itself by the chosen client's
 * name, so the server gives it that client's instructions and tools. A trigger is what the
 * server saw: the usage hook every handler already calls (feature.ts) tells each use of a skill,
 * which is certain where reading a transcript is a guess.
 */
import { Client, InMemoryTransport } from "@modelcontextprotocol/client";
import type { CatalogSettings } from "../config/catalog-settings.ts";
import type { SkillUse, SkillUseVia } from "../mcp/feature.ts";
import type { RegistrySource } from "../mcp/registry-source.ts";
import { createServer } from "../mcp/server.ts";
import type { Registry } from "../registry/registry.ts";
import { VERSION } from "../version.ts";
import type { ToolCall, ToolResult, ToolSpec } from "./conversation.ts";

/** The pinned results format's trigger kinds; a tool skill called by its own tool name counts as run_skill_tool. */
export type TriggerKind = "load_skill" | "skills/get" | "prompts/get" | "run_skill_tool";

export interface Trigger {
  kind: TriggerKind;
  skill: string;
}

const KIND: Partial<Record<SkillUseVia, TriggerKind>> = {
  load_skill: "load_skill",
  "skills/get": "skills/get",
  "prompts/get": "prompts/get",
  run_skill_tool: "run_skill_tool",
  "tools/call": "run_skill_tool",
};

/** A registry served as it is, for the length of a run: no reloads, no waiting. */
function fixedSource(registry: Registry, catalog: CatalogSettings): RegistrySource {
  return {
    current: () => Promise.resolve(registry),
    loaded: () => registry,
    pageSize: () => undefined,
    catalogSettings: () => catalog,
    elicitation: () => ({ mode: "off" }),
    onSwap: () => () => {},
  };
}

/** The name the eval's client gives when none is chosen: unknown to the server, so served by the catalog settings alone. */
export const EVAL_CLIENT_NAME = "skill-central-eval";

export interface CatalogSession {
  instructions: string;
  tools: ToolSpec[];
  /** Every trigger the server saw since the session opened. */
  triggers: Trigger[];
  call(call: ToolCall): Promise<ToolResult>;
  close(): Promise<void>;
}

/** Tool names a model API accepts (OpenAI: `^[a-zA-Z0-9_-]{1,64}$`); the server's own name is kept to call it back. */
function modelToolName(name: string, taken: Set<string>): string {
  const base = name.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 60) || "tool";
  let candidate = base;
  for (let n = 2; taken.has(candidate); n++) candidate = `${base}_${n}`;
  taken.add(candidate);
  return candidate;
}

function textOf(content: unknown): string {
  if (!Array.isArray(content)) return "";
  return content
    .map((block: { type?: unknown; text?: unknown }) =>
      block.type === "text" && typeof block.text === "string" ? block.text : JSON.stringify(block),
    )
    .join("\n");
}

export async function openCatalogSession(
  registry: Registry,
  catalog: CatalogSettings,
  clientName: string,
): Promise<CatalogSession> {
  const triggers: Trigger[] = [];
  const onUse = (use: SkillUse) => {
    const kind = KIND[use.via];
    if (kind !== undefined) triggers.push({ kind, skill: use.skill });
  };
  const server = createServer(fixedSource(registry, catalog), { live: false, onUse });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: clientName, version: VERSION });
  await client.connect(clientSide);
  const listed = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor });
    for (const tool of page.tools) listed.push(tool);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  const taken = new Set<string>();
  const byModelName = new Map<string, string>();
  const tools = listed.map((tool) => {
    const name = modelToolName(tool.name, taken);
    byModelName.set(name, tool.name);
    return {
      name,
      description: tool.description ?? tool.title ?? tool.name,
      parameters: tool.inputSchema as Record<string, unknown>,
    };
  });
  return {
    instructions: client.getInstructions() ?? "",
    tools,
    triggers,
    async call(call) {
      const name = byModelName.get(call.name);
      if (name === undefined)
        return { id: call.id, name: call.name, content: `no tool named "${call.name}"`, isError: true };
      try {
        const result = await client.callTool({ name, arguments: call.arguments });
        return { id: call.id, name: call.name, content: textOf(result.content), isError: result.isError === true };
      } catch (error) {
        return { id: call.id, name: call.name, content: (error as Error).message, isError: true };
      }
    },
    async close() {
      await client.close();
      await server.close();
    },
  };
}
