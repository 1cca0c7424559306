/**
 * The "floor": the smallest useful MCP stdio server built on the low-level
 * SDK `Server` (the SDK's v2 packages, served like ours: `serveStdio` with a
 * factory, both protocol eras). It sets the lower bound skill-central's
 * startup and request latency are compared against, so it deliberately does
 * no I/O, parsing or templating beyond what the protocol requires.
 */
import {
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type CallToolResult,
  type GetPromptResult,
} from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";

const HELLO_PROMPT = {
  name: "hello",
  description: "Greets someone by name",
  arguments: [{ name: "name", description: "Who to greet", required: true }],
};

const ECHO_TOOL = {
  name: "echo",
  description: "Returns the given text",
  inputSchema: {
    type: "object" as const,
    properties: { text: { type: "string" } },
    required: ["text"],
  },
};

function getHello(name: string, args: Record<string, string> | undefined): GetPromptResult {
  if (name !== HELLO_PROMPT.name) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown prompt: ${name}`);
  const who = args?.name;
  if (!who) throw new ProtocolError(ProtocolErrorCode.InvalidParams, "Missing required argument: name");
  return { messages: [{ role: "user", content: { type: "text", text: `Hello, ${who}!` } }] };
}

/** Validation errors are tool results (isError), not protocol errors, per the MCP spec. */
function callEcho(name: string, args: Record<string, unknown> | undefined): CallToolResult {
  if (name !== ECHO_TOOL.name) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`);
  const text = args?.text;
  if (typeof text !== "string") {
    return { isError: true, content: [{ type: "text", text: "Invalid arguments: text must be a string" }] };
  }
  return { content: [{ type: "text", text }] };
}

function createServer(): Server {
  const server = new Server({ name: "floor", version: "0.0.0" }, { capabilities: { prompts: {}, tools: {} } });
  server.setRequestHandler("prompts/list", () => ({ prompts: [HELLO_PROMPT] }));
  server.setRequestHandler("prompts/get", (req) => getHello(req.params.name, req.params.arguments));
  server.setRequestHandler("tools/list", () => ({ tools: [ECHO_TOOL] }));
  server.setRequestHandler("tools/call", (req) => callEcho(req.params.name, req.params.arguments));
  return server;
}

// The transport does not end the process when the client goes away; without
// this a closed stdin would leave an orphan that skews repeated benchmarks.
process.stdin.on("end", () => process.exit(0));
process.stdin.on("close", () => process.exit(0));
serveStdio(() => createServer());
