import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { SERVER_NAME, VERSION } from "../version.ts";
import { registerPrompts } from "./prompts.ts";
import type { RegistrySource } from "./registry-source.ts";
import { registerTools } from "./tools.ts";

/** The MCP server: a thin adapter from protocol requests to registry operations. */
export function createServer(source: RegistrySource): Server {
  const server = new Server({ name: SERVER_NAME, version: VERSION }, { capabilities: { prompts: {}, tools: {} } });
  registerPrompts(server, source);
  registerTools(server, source);
  return server;
}
