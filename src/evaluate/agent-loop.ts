/**
 * One eval run's conversation: the prompt to the model with the catalog's instructions and
 * tools, each tool call forwarded to our server and its result sent back, until the model answers
 * without calling a tool or `maxTurns` answers have been asked for. SKILL.md is never pasted into
 * the prompt: the model reaches a skill only by picking it from the catalog, as in a real client.
 */
import type { CatalogSession } from "./catalog-session.ts";
import type { Message } from "./conversation.ts";
import type { ExchangeScope, ModelClient } from "./model-client.ts";

export interface Conversation {
  messages: Message[];
  /** The model's last text: its answer. */
  answer: string;
  turns: number;
  inputTokens: number;
  outputTokens: number;
  /** The model was still calling tools after `maxTurns` answers. */
  stoppedAtMaxTurns: boolean;
}

export async function converse(
  models: ModelClient,
  model: string,
  session: CatalogSession,
  prompt: string,
  options: { maxTurns: number; scope: ExchangeScope },
): Promise<Conversation> {
  const messages: Message[] = [{ role: "user", text: prompt }];
  const conversation: Conversation = {
    messages,
    answer: "",
    turns: 0,
    inputTokens: 0,
    outputTokens: 0,
    stoppedAtMaxTurns: false,
  };
  while (conversation.turns < options.maxTurns) {
    const turn = await models.turn(
      { model, system: session.instructions, messages, tools: session.tools },
      options.scope,
    );
    conversation.turns++;
    conversation.inputTokens += turn.inputTokens;
    conversation.outputTokens += turn.outputTokens;
    conversation.answer = turn.text;
    messages.push({ role: "assistant", text: turn.text, toolCalls: turn.toolCalls });
    if (turn.toolCalls.length === 0) return conversation;
    const results = [];
    for (const call of turn.toolCalls) results.push(await session.call(call));
    messages.push({ role: "tool", results });
  }
  conversation.stoppedAtMaxTurns = true;
  return conversation;
}
