/**
 * The "floor": the smallest useful MCP stdio server built on the low-level
 * SDK `Server`. It sets the lower bound skill-central's startup and request
 * latency are compared against, so it deliberately does no I/O, parsing or
 * templating beyond what the protocol requires.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  GetPromptRequestSchema,
  type GetPromptResult,
  ListPromptsRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ErrorCode,
} from "@modelcontextprotocol/sdk/types.js";

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
  if (name !== HELLO_PROMPT.name) throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${name}`);
  const who = args?.name;
  if (!who) throw new McpError(ErrorCode.InvalidParams, "Missing required argument: name");
  return { messages: [{ role: "user", content: { type: "text", text: `Hello, ${who}!` } }] };
}

/** Validation errors are tool results (isError), not protocol errors, per the MCP spec. */
function callEcho(name: string, args: Record<string, unknown> | undefined): CallToolResult {
  if (name !== ECHO_TOOL.name) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
  const text = args?.text;
  if (typeof text !== "string") {
    return { isError: true, content: [{ type: "text", text: "Invalid arguments: text must be a string" }] };
  }
  return { content: [{ type: "text", text }] };
}

function createServer(): Server {
  const server = new Server(
    { name: "floor", version: "0.0.0" },
    { capabilities: { prompts: {}, tools: {} } },
  );
  server.setRequestHandler(ListPromptsRequestSchema, () => ({ prompts: [HELLO_PROMPT] }));
  server.setRequestHandler(GetPromptRequestSchema, (req) => getHello(req.params.name, req.params.arguments));
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [ECHO_TOOL] }));
  server.setRequestHandler(CallToolRequestSchema, (req) => callEcho(req.params.name, req.params.arguments));
  return server;
}

const server = createServer();
// The transport does not end the process when the client goes away; without
// this a closed stdin would leave an orphan that skews repeated benchmarks.
process.stdin.on("end", () => process.exit(0));
process.stdin.on("close", () => process.exit(0));
await server.connect(new StdioServerTransport());
