import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { SERVER_NAME, VERSION } from "../version.ts";
import { registerCompletion } from "./completion.ts";
import { serverInstructions } from "./instructions.ts";
import { registerListChanged } from "./list-changed.ts";
import { registerPrompts } from "./prompts.ts";
import type { RegistrySource } from "./registry-source.ts";
import { registerResources } from "./resources.ts";
import { registerTools } from "./tools.ts";

export interface ServerOptions {
  /** The skills are watched and reloaded: declare `listChanged` and send the notifications. */
  live: boolean;
  /** Where to report what cannot go to the client. */
  warn: (message: string) => void;
}

/** The MCP server: a thin adapter from protocol requests to registry operations. */
export function createServer(source: RegistrySource, options: ServerOptions): Server {
  const listChanged = options.live;
  const server = new Server(
    { name: SERVER_NAME, version: VERSION },
    {
      capabilities: { prompts: { listChanged }, tools: { listChanged }, resources: { listChanged }, completions: {} },
      instructions: serverInstructions({ live: options.live }),
    },
  );
  registerPrompts(server, source);
  registerTools(server, source);
  registerResources(server, source);
  registerCompletion(server, source);
  if (options.live) registerListChanged(server, source, options.warn);
  return server;
}
