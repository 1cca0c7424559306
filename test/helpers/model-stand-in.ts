/**
 * A stand-in for a model API on 127.0.0.1, speaking both wire formats `skill-central eval
 * --model` uses: OpenAI chat completions (`POST /v1/chat/completions`, tool calls in
 * `choices[0].message.tool_calls`) and Anthropic Messages (`POST /v1/messages`, `tool_use`
 * blocks). It is a double of the WIRE PROTOCOL, not of model quality: its choices are scripted
 * and deterministic, so tests check our loop, grading, recordings and errors, never a model.
 *
 * A script sees each request in one neutral shape and answers with text, tool calls, a raw
 * body (malformed answers, 429s), or `hold`: no answer until the client gives up, which the
 * stand-in reports as an event (`aborted`) so a timeout test waits on it, not on a clock.
 */

export interface SeenRequest {
  provider: "openai" | "anthropic";
  model: string;
  system: string;
  tools: string[];
  /** The first user message's text: the eval's prompt. */
  prompt: string;
  /** Tool results sent back so far, in order. */
  toolResults: { name?: string; content: string; isError: boolean }[];
  /** How many answers the model has given in this conversation. */
  turn: number;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

export type Reply =
  | { text: string }
  | { toolCalls: { name: string; arguments: Record<string, unknown> }[]; text?: string }
  | { status: number; body: string; headers?: Record<string, string> }
  | { hold: true };

export type Script = (request: SeenRequest) => Reply;

export interface StandIn {
  /** OpenAI base URL (`…/v1`); Anthropic's is `origin`. */
  openaiBase: string;
  origin: string;
  requests: SeenRequest[];
  script: Script;
  /** Resolves when a held request is aborted by its client. */
  aborted(): Promise<void>;
  stop(): Promise<void>;
}

type Json = Record<string, unknown>;

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content))
    return content
      .map((b: Json) => (typeof b.text === "string" ? b.text : typeof b.content === "string" ? b.content : ""))
      .join("");
  return "";
}

function seenOpenai(body: Json, headers: Record<string, string>): SeenRequest {
  const messages = (body.messages as Json[]) ?? [];
  const names = new Map<string, string>();
  for (const m of messages)
    for (const c of (m.tool_calls as Json[] | undefined) ?? [])
      names.set(c.id as string, (c.function as Json).name as string);
  return {
    provider: "openai",
    model: body.model as string,
    system: textOf(messages.find((m) => m.role === "system")?.content),
    tools: ((body.tools as Json[]) ?? []).map((t) => (t.function as Json).name as string),
    prompt: textOf(messages.find((m) => m.role === "user")?.content),
    toolResults: messages
      .filter((m) => m.role === "tool")
      .map((m) => ({ name: names.get(m.tool_call_id as string), content: textOf(m.content), isError: false })),
    turn: messages.filter((m) => m.role === "assistant").length,
    headers,
    body,
  };
}

function seenAnthropic(body: Json, headers: Record<string, string>): SeenRequest {
  const messages = (body.messages as Json[]) ?? [];
  const names = new Map<string, string>();
  for (const m of messages)
    if (Array.isArray(m.content))
      for (const b of m.content as Json[]) if (b.type === "tool_use") names.set(b.id as string, b.name as string);
  const results = messages.flatMap((m) =>
    Array.isArray(m.content) ? (m.content as Json[]).filter((b) => b.type === "tool_result") : [],
  );
  return {
    provider: "anthropic",
    model: body.model as string,
    system: typeof body.system === "string" ? body.system : "",
    tools: ((body.tools as Json[]) ?? []).map((t) => t.name as string),
    prompt: textOf(messages.find((m) => m.role === "user")?.content),
    toolResults: results.map((b) => ({
      name: names.get(b.tool_use_id as string),
      content: textOf(b.content),
      isError: b.is_error === true,
    })),
    turn: messages.filter((m) => m.role === "assistant").length,
    headers,
    body,
  };
}

let ids = 0;

function answer(provider: "openai" | "anthropic", reply: Exclude<Reply, { status: number } | { hold: true }>): Json {
  const calls = "toolCalls" in reply ? reply.toolCalls : [];
  const text = "text" in reply ? (reply.text ?? "") : "";
  if (provider === "openai")
    return {
      choices: [
        {
          message: {
            role: "assistant",
            content: text === "" ? null : text,
            ...(calls.length > 0 && {
              tool_calls: calls.map((c) => ({
                id: `call_${++ids}`,
                type: "function",
                function: { name: c.name, arguments: JSON.stringify(c.arguments) },
              })),
            }),
          },
          finish_reason: calls.length > 0 ? "tool_calls" : "stop",
        },
      ],
      usage: { prompt_tokens: 100, completion_tokens: 20 },
    };
  return {
    content: [
      ...(text === "" ? [] : [{ type: "text", text }]),
      ...calls.map((c) => ({ type: "tool_use", id: `toolu_${++ids}`, name: c.name, input: c.arguments })),
    ],
    stop_reason: calls.length > 0 ? "tool_use" : "end_turn",
    usage: { input_tokens: 100, output_tokens: 20 },
  };
}

export function startStandIn(script: Script): StandIn {
  let onAbort = Promise.withResolvers<void>();
  const requests: SeenRequest[] = [];
  const standIn: StandIn = {
    openaiBase: "",
    origin: "",
    requests,
    script,
    aborted: () => onAbort.promise,
    stop: async () => {
      await server.stop(true);
    },
  };
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const path = new URL(req.url).pathname;
      const provider = path === "/v1/chat/completions" ? "openai" : path === "/v1/messages" ? "anthropic" : undefined;
      if (req.method !== "POST" || provider === undefined) return new Response("not found", { status: 404 });
      const body = (await req.json()) as Json;
      const headers = Object.fromEntries(req.headers.entries());
      const seen = provider === "openai" ? seenOpenai(body, headers) : seenAnthropic(body, headers);
      requests.push(seen);
      const reply = standIn.script(seen);
      if ("hold" in reply)
        return new Promise<Response>((resolve) => {
          req.signal.addEventListener("abort", () => {
            onAbort.resolve();
            onAbort = Promise.withResolvers<void>();
            resolve(new Response("too late", { status: 500 }));
          });
        });
      if ("status" in reply)
        return new Response(reply.body, {
          status: reply.status,
          headers: { "content-type": "application/json", ...reply.headers },
        });
      return Response.json(answer(provider, reply));
    },
  });
  standIn.origin = `http://127.0.0.1:${server.port}`;
  standIn.openaiBase = `${standIn.origin}/v1`;
  return standIn;
}
