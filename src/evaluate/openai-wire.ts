/**
 * OpenAI-compatible chat completions (`POST {base}/chat/completions`, tool calls as
 * `choices[0].message.tool_calls`): the wire shape only. Ollama, llama.cpp and vLLM speak it too,
 * so a team can run evals against a local model with `--base-url`.
 */
import { isObject, MalformedAnswer, type Message, type ModelRequest, type ModelTurn } from "./conversation.ts";
import type { Wire } from "./wire.ts";

function messagesOf(system: string, messages: readonly Message[]): unknown[] {
  const out: unknown[] = system === "" ? [] : [{ role: "system", content: system }];
  for (const m of messages) {
    if (m.role === "user") out.push({ role: "user", content: m.text });
    else if (m.role === "assistant")
      out.push({
        role: "assistant",
        content: m.text === "" && m.toolCalls.length > 0 ? null : m.text,
        ...(m.toolCalls.length > 0 && {
          tool_calls: m.toolCalls.map((c) => ({
            id: c.id,
            type: "function",
            function: { name: c.name, arguments: JSON.stringify(c.arguments) },
          })),
        }),
      });
    else for (const r of m.results) out.push({ role: "tool", tool_call_id: r.id, content: r.content });
  }
  return out;
}

function parse(body: unknown): ModelTurn {
  if (!isObject(body) || !Array.isArray(body.choices) || body.choices.length === 0)
    throw new MalformedAnswer("no choices[0] in the chat completion");
  const first = body.choices[0];
  const message = isObject(first) ? first.message : undefined;
  if (!isObject(message)) throw new MalformedAnswer("choices[0].message is not an object");
  if (message.content !== undefined && message.content !== null && typeof message.content !== "string")
    throw new MalformedAnswer("choices[0].message.content is not a string");
  const calls = message.tool_calls ?? [];
  if (!Array.isArray(calls)) throw new MalformedAnswer("choices[0].message.tool_calls is not a list");
  const toolCalls = calls.map((call, i) => {
    const where = `choices[0].message.tool_calls[${i}]`;
    if (!isObject(call) || typeof call.id !== "string" || !isObject(call.function))
      throw new MalformedAnswer(`${where} has no id or function`);
    const { name, arguments: raw } = call.function;
    if (typeof name !== "string" || name === "") throw new MalformedAnswer(`${where}.function.name is not a name`);
    let args: unknown = {};
    if (typeof raw === "string" && raw.trim() !== "") {
      try {
        args = JSON.parse(raw);
      } catch {
        throw new MalformedAnswer(`${where}.function.arguments is not JSON`);
      }
    } else if (raw !== undefined && raw !== "" && !isObject(raw))
      throw new MalformedAnswer(`${where}.function.arguments is not a JSON string`);
    else if (isObject(raw)) args = raw;
    if (!isObject(args)) throw new MalformedAnswer(`${where}.function.arguments is not a JSON object`);
    return { id: call.id, name, arguments: args };
  });
  const usage = isObject(body.usage) ? body.usage : {};
  return {
    text: typeof message.content === "string" ? message.content : "",
    toolCalls,
    inputTokens: typeof usage.prompt_tokens === "number" ? usage.prompt_tokens : 0,
    outputTokens: typeof usage.completion_tokens === "number" ? usage.completion_tokens : 0,
  };
}

export const OPENAI_WIRE: Wire = {
  provider: "openai",
  defaultBaseUrl: "https://api.openai.com/v1",
  keyVariable: "OPENAI_API_KEY",
  url: (base) => `${base.replace(/\/+$/, "")}/chat/completions`,
  headers: (key): Record<string, string> => (key === undefined ? {} : { authorization: `Bearer ${key}` }),
  body: (req: ModelRequest) => ({
    model: req.model,
    messages: messagesOf(req.system, req.messages),
    ...(req.tools.length > 0 && {
      tools: req.tools.map((t) => ({
        type: "function",
        function: { name: t.name, description: t.description, parameters: t.parameters },
      })),
    }),
  }),
  parse,
};
