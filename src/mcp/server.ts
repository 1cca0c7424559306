/** The MCP server for one connection: every feature registered, capabilities declared, `tools/call` reaching our own check. */
import { InitializeRequestParamsSchema } from "@modelcontextprotocol/core";
import {
  mergeCapabilities,
  Server,
  type JSONRPCRequest,
  type Result,
  type ServerCapabilities,
  type ServerContext,
} from "@modelcontextprotocol/server";
import { SERVER_NAME, VERSION } from "../version.ts";
import { cacheHints } from "./cache-hints.ts";
import { completionFeature } from "./completion.ts";
import type { Feature, FeatureOptions } from "./feature.ts";
import { rememberClient } from "./catalog/mode.ts";
import { clientProfile } from "./catalog/client-profiles.ts";
import { instructionsFor, serverInstructions } from "./instructions.ts";
import { promptsFeature } from "./prompts.ts";
import type { RegistrySource } from "./registry-source.ts";
import { checkParams } from "./request-handler.ts";
import { resourceSubscriptionsFeature } from "./resource-subscriptions.ts";
import { resourcesFeature } from "./resources.ts";
import { skillsExtensionFeature } from "./skills-extension.ts";
import { toolsFeature } from "./tools.ts";

/** Every MCP area the server offers; each declares its capabilities and registers its handlers. */
export const FEATURES: readonly Feature[] = [
  promptsFeature,
  toolsFeature,
  resourcesFeature,
  resourceSubscriptionsFeature,
  skillsExtensionFeature,
  completionFeature,
];

export function serverCapabilities(
  options: FeatureOptions,
  features: readonly Feature[] = FEATURES,
): ServerCapabilities {
  return features.reduce<ServerCapabilities>(
    (merged, feature) => mergeCapabilities(merged, feature.capabilities(options)),
    {},
  );
}

type RequestHandler = (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result>;

/** Who sent `initialize` (its params), or a 2026-07-28 request (its `_meta` envelope). */
function clientOf(method: string, request: JSONRPCRequest, ctx: ServerContext) {
  const params = (request.params ?? {}) as { clientInfo?: { name?: unknown }; capabilities?: Record<string, unknown> };
  if (method === "initialize") return clientProfile(params.clientInfo, params.capabilities);
  const envelope = (ctx.mcpReq.envelope ?? {}) as Record<
    string,
    { name?: unknown } | Record<string, unknown> | undefined
  >;
  return clientProfile(
    envelope["io.modelcontextprotocol/clientInfo"],
    envelope["io.modelcontextprotocol/clientCapabilities"] as Record<string, unknown> | undefined,
  );
}

/**
 * The SDK's `Server`, except that `tools/call` reaches our handler unchecked: the SDK checks its
 * params first and answers a malformed call with a dump of schema issues, where every other
 * method answers "Invalid params for <method>: <path>: <problem>" (request-handler.ts). It also
 * re-validates each tool result, which ours satisfy by construction. `initialize`, which the SDK
 * answers itself, has its params checked here first, for the same reason: the SDK's own check
 * answers a malformed one with -32603 (an internal error) and the dump. And the instructions of
 * `initialize` and `server/discover` are written for the client asking (instructions.ts).
 */
class SkillServer extends Server {
  /** Set once built; read when a client asks (the base constructor registers `initialize` before it exists). */
  instructionsFor?: (client: ReturnType<typeof clientProfile>, method: string) => Promise<string>;

  protected override _wrapHandler(method: string, handler: RequestHandler): RequestHandler {
    if (method === "tools/call") return handler;
    const wrapped = super._wrapHandler(method, handler);
    if (method !== "initialize" && method !== "server/discover") return wrapped;
    return async (request, ctx) => {
      if (method === "initialize") checkParams(method, InitializeRequestParamsSchema, request.params);
      const client = clientOf(method, request, ctx);
      if (method === "initialize") rememberClient(this, client);
      const [result, instructions] = await Promise.all([wrapped(request, ctx), this.instructionsFor?.(client, method)]);
      return instructions === undefined ? result : { ...result, instructions };
    };
  }
}

/**
 * One MCP server instance: a thin adapter from protocol requests to registry operations. The
 * transports make one per connection (stdio, a 2025-11-25 HTTP session) or per request
 * (stateless HTTP); building one costs a few handler registrations, nothing per skill.
 */
export function createServer(
  source: RegistrySource,
  options: FeatureOptions,
  features: readonly Feature[] = FEATURES,
): Server {
  const server = new SkillServer(
    { name: SERVER_NAME, version: VERSION },
    {
      capabilities: serverCapabilities(options, features),
      instructions: serverInstructions(options),
      cacheHints: cacheHints(options),
    },
  );
  // Stateless, the requests after a 2025-11-25 `initialize` reach other instances, which cannot
  // know the client: its instructions promise what an unknown client gets.
  const forgets = (method: string) => options.stateless === true && method === "initialize";
  server.instructionsFor = (client, method) =>
    instructionsFor(source, forgets(method) ? clientProfile(undefined, undefined) : client, options);
  for (const feature of features) feature.register(server, source, options);
  return server;
}
