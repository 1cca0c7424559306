/**
 * Anthropic's Messages API (`POST {base}/v1/messages`, tool use as `content[]` blocks of type
 * `tool_use`, answered by `tool_result` blocks in the next user message): the wire shape only.
 */
import { isObject, MalformedAnswer, type Message, type ModelRequest, type ModelTurn } from "./conversation.ts";
import type { Wire } from "./wire.ts";

/** The API requires a bound on each answer; an eval answer longer than this is not one a person reads. */
const MAX_TOKENS = 4096;
const API_VERSION = "2023-06-01";

function messagesOf(messages: readonly Message[]): unknown[] {
  return messages.map((m) => {
    if (m.role === "user") return { role: "user", content: m.text };
    if (m.role === "assistant")
      return {
        role: "assistant",
        content: [
          ...(m.text === "" ? [] : [{ type: "text", text: m.text }]),
          ...m.toolCalls.map((c) => ({ type: "tool_use", id: c.id, name: c.name, input: c.arguments })),
        ],
      };
    return {
      role: "user",
      content: m.results.map((r) => ({
        type: "tool_result",
        tool_use_id: r.id,
        content: r.content,
        ...(r.isError && { is_error: true }),
      })),
    };
  });
}

function parse(body: unknown): ModelTurn {
  if (!isObject(body) || !Array.isArray(body.content)) throw new MalformedAnswer("content is not a list of blocks");
  const text: string[] = [];
  const toolCalls = [];
  for (const [i, block] of body.content.entries()) {
    if (!isObject(block) || typeof block.type !== "string") throw new MalformedAnswer(`content[${i}] has no type`);
    if (block.type === "text") {
      if (typeof block.text !== "string") throw new MalformedAnswer(`content[${i}].text is not a string`);
      text.push(block.text);
    } else if (block.type === "tool_use") {
      if (typeof block.id !== "string" || typeof block.name !== "string" || block.name === "")
        throw new MalformedAnswer(`content[${i}] (tool_use) has no id or name`);
      if (!isObject(block.input)) throw new MalformedAnswer(`content[${i}].input is not an object`);
      toolCalls.push({ id: block.id, name: block.name, arguments: block.input });
    }
  }
  const usage = isObject(body.usage) ? body.usage : {};
  return {
    text: text.join("\n"),
    toolCalls,
    inputTokens: typeof usage.input_tokens === "number" ? usage.input_tokens : 0,
    outputTokens: typeof usage.output_tokens === "number" ? usage.output_tokens : 0,
  };
}

export const ANTHROPIC_WIRE: Wire = {
  provider: "anthropic",
  defaultBaseUrl: "https://api.anthropic.com",
  keyVariable: "ANTHROPIC_API_KEY",
  url: (base) => `${base.replace(/\/+$/, "")}/v1/messages`,
  headers: (key) => ({ "anthropic-version": API_VERSION, ...(key !== undefined && { "x-api-key": key }) }),
  body: (req: ModelRequest) => ({
    model: req.model,
    max_tokens: MAX_TOKENS,
    ...(req.system !== "" && { system: req.system }),
    messages: messagesOf(req.messages),
    ...(req.tools.length > 0 && {
      tools: req.tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters })),
    }),
  }),
  parse,
};
