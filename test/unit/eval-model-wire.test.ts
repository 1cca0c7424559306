/**
 * The model wire adapters and the exchange (src/evaluate/): each answer read as its API shapes
 * it, a malformed one named by the part that is wrong, the timeout (the stand-in holds the
 * answer until the client aborts: the test waits on that event), and a replay that cannot reach
 * the network.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ANTHROPIC_WIRE } from "../../src/evaluate/anthropic-wire.ts";
import type { ModelRequest } from "../../src/evaluate/conversation.ts";
import { ModelClient } from "../../src/evaluate/model-client.ts";
import { OPENAI_WIRE } from "../../src/evaluate/openai-wire.ts";
import { postJson } from "../../src/evaluate/wire.ts";
import { type StandIn, startStandIn } from "../helpers/model-stand-in.ts";

const REQUEST: ModelRequest = {
  model: "m",
  system: "be brief",
  messages: [
    { role: "user", text: "hi" },
    { role: "assistant", text: "", toolCalls: [{ id: "c1", name: "load_skill", arguments: { name: "x" } }] },
    { role: "tool", results: [{ id: "c1", name: "load_skill", content: "body", isError: false }] },
  ],
  tools: [{ name: "load_skill", description: "Load", parameters: { type: "object" } }],
};

describe("wire adapters", () => {
  test("OpenAI: the conversation as chat messages with tool_calls and tool results; an answer's tool calls read back", () => {
    const body = OPENAI_WIRE.body(REQUEST);
    expect(body.messages).toEqual([
      { role: "system", content: "be brief" },
      { role: "user", content: "hi" },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "c1", type: "function", function: { name: "load_skill", arguments: '{"name":"x"}' } }],
      },
      { role: "tool", tool_call_id: "c1", content: "body" },
    ]);
    expect(body.tools).toEqual([
      { type: "function", function: { name: "load_skill", description: "Load", parameters: { type: "object" } } },
    ]);
    const turn = OPENAI_WIRE.parse({
      choices: [
        { message: { content: "ok", tool_calls: [{ id: "a", function: { name: "f", arguments: '{"q":1}' } }] } },
      ],
      usage: { prompt_tokens: 7, completion_tokens: 3 },
    });
    expect(turn).toEqual({
      text: "ok",
      toolCalls: [{ id: "a", name: "f", arguments: { q: 1 } }],
      inputTokens: 7,
      outputTokens: 3,
    });
  });

  test("Anthropic: system apart, tool_use and tool_result blocks; text blocks joined", () => {
    const body = ANTHROPIC_WIRE.body(REQUEST);
    expect(body.system).toBe("be brief");
    expect(body.max_tokens).toBeGreaterThan(0);
    expect(body.messages).toEqual([
      { role: "user", content: "hi" },
      { role: "assistant", content: [{ type: "tool_use", id: "c1", name: "load_skill", input: { name: "x" } }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "c1", content: "body" }] },
    ]);
    expect(body.tools).toEqual([{ name: "load_skill", description: "Load", input_schema: { type: "object" } }]);
    const turn = ANTHROPIC_WIRE.parse({
      content: [
        { type: "text", text: "a" },
        { type: "tool_use", id: "t", name: "f", input: {} },
        { type: "text", text: "b" },
      ],
      usage: { input_tokens: 5, output_tokens: 2 },
    });
    expect(turn).toEqual({
      text: "a\nb",
      toolCalls: [{ id: "t", name: "f", arguments: {} }],
      inputTokens: 5,
      outputTokens: 2,
    });
  });

  test("a malformed answer is an error naming the part that is wrong", () => {
    const openai = (body: unknown) => () => OPENAI_WIRE.parse(body);
    expect(openai({})).toThrow("malformed answer: no choices[0] in the chat completion");
    expect(openai({ choices: [{}] })).toThrow("malformed answer: choices[0].message is not an object");
    expect(openai({ choices: [{ message: { content: 3 } }] })).toThrow("choices[0].message.content is not a string");
    expect(openai({ choices: [{ message: { tool_calls: {} } }] })).toThrow(
      "choices[0].message.tool_calls is not a list",
    );
    expect(
      openai({ choices: [{ message: { tool_calls: [{ id: "a", function: { name: "f", arguments: "[1]" } }] } }] }),
    ).toThrow("choices[0].message.tool_calls[0].function.arguments is not a JSON object");
    const anthropic = (body: unknown) => () => ANTHROPIC_WIRE.parse(body);
    expect(anthropic({ content: "x" })).toThrow("malformed answer: content is not a list of blocks");
    expect(anthropic({ content: [{ text: "x" }] })).toThrow("malformed answer: content[0] has no type");
    expect(anthropic({ content: [{ type: "tool_use", id: "t", name: "f", input: "x" }] })).toThrow(
      "malformed answer: content[0].input is not an object",
    );
  });
});

describe("the exchange", () => {
  let standIn: StandIn;
  beforeAll(() => {
    standIn = startStandIn(() => ({ text: "ok" }));
  });
  afterAll(() => standIn.stop());
  const options = { key: "k-123456", retries: 2, backoffMs: () => 0, fetch };

  test("a held answer is cut at the timeout: the client aborts (the stand-in sees it) and the error says so", async () => {
    standIn.script = () => ({ hold: true });
    const post = postJson(`${standIn.openaiBase}/chat/completions`, {}, {}, { ...options, timeoutMs: 200 });
    const [outcome] = await Promise.all([
      post.then(
        () => "answered",
        (error: Error) => error.message,
      ),
      standIn.aborted(),
    ]);
    expect(outcome).toBe(`no answer from ${standIn.origin} within 0.2s (--timeout)`);
  });

  test("a 429 is retried, honouring Retry-After, and then answered", async () => {
    let calls = 0;
    standIn.script = () =>
      ++calls === 1 ? { status: 429, body: "slow down", headers: { "retry-after": "0" } } : { text: "fine" };
    const answer = await postJson(`${standIn.openaiBase}/chat/completions`, {}, {}, { ...options, timeoutMs: 10_000 });
    expect(calls).toBe(2);
    expect(OPENAI_WIRE.parse(answer).text).toBe("fine");
  });

  test("a replay answers from the recordings only: no recording is an error naming the eval, and no request is made", async () => {
    const dir = mkdtempSync(join(tmpdir(), "replay-"));
    try {
      const before = standIn.requests.length;
      const client = new ModelClient({
        wire: OPENAI_WIRE,
        baseUrl: standIn.openaiBase,
        key: undefined,
        timeoutMs: 1000,
        replay: dir,
      });
      expect(client.hasRecordings("greet", "sha256:00")).toBe(false);
      await expect(
        client.turn(REQUEST, { skill: "greet", digest: "sha256:00", label: "greet eval 1 with_skill run 1" }),
      ).rejects.toThrow(/^greet eval 1 with_skill run 1: no recording of this request/);
      expect(standIn.requests.length).toBe(before);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
