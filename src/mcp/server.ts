import { mergeCapabilities, Server, type JSONRPCRequest, type Result, type ServerCapabilities, type ServerContext } from "@modelcontextprotocol/server";
import { SERVER_NAME, VERSION } from "../version.ts";
import { cacheHints } from "./cache-hints.ts";
import { completionFeature } from "./completion.ts";
import type { Feature, FeatureOptions } from "./feature.ts";
import { serverInstructions } from "./instructions.ts";
import { promptsFeature } from "./prompts.ts";
import type { RegistrySource } from "./registry-source.ts";
import { resourcesFeature } from "./resources.ts";
import { skillsExtensionFeature } from "./skills-extension.ts";
import { toolsFeature } from "./tools.ts";

/** Every MCP area the server offers; each declares its capabilities and registers its handlers. */
export const FEATURES: readonly Feature[] = [promptsFeature, toolsFeature, resourcesFeature, skillsExtensionFeature, completionFeature];

export function serverCapabilities(options: FeatureOptions, features: readonly Feature[] = FEATURES): ServerCapabilities {
  return features.reduce<ServerCapabilities>((merged, feature) => mergeCapabilities(merged, feature.capabilities(options)), {});
}

type RequestHandler = (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result>;

/**
 * The SDK's `Server`, except that `tools/call` reaches our handler unchecked: the SDK checks its
 * params first and answers a malformed call with a dump of schema issues, where every other
 * method answers "Invalid params for <method>: <path>: <problem>" (request-handler.ts). It also
 * re-validates each tool result, which ours satisfy by construction (text content only).
 */
class SkillServer extends Server {
  protected override _wrapHandler(method: string, handler: RequestHandler): RequestHandler {
    return method === "tools/call" ? handler : super._wrapHandler(method, handler);
  }
}

/**
 * One MCP server instance: a thin adapter from protocol requests to registry operations. The
 * transports make one per connection (stdio, a 2025-11-25 HTTP session) or per request
 * (stateless HTTP); building one costs a few handler registrations, nothing per skill.
 */
export function createServer(source: RegistrySource, options: FeatureOptions, features: readonly Feature[] = FEATURES): Server {
  const server = new SkillServer(
    { name: SERVER_NAME, version: VERSION },
    {
      capabilities: serverCapabilities(options, features),
      instructions: serverInstructions(options),
      cacheHints: cacheHints(options),
    },
  );
  for (const feature of features) feature.register(server, source, options);
  return server;
}
