/**
 * The conversation of an eval run, in one provider-neutral shape: what the agent loop keeps and
 * the transcripts record. Each wire adapter (openai-wire.ts, anthropic-wire.ts) maps it to and
 * from its API, so the loop, the recordings and the grading never depend on a provider.
 */

/** A tool as the model is offered it: one of the tools our server lists to the chosen client. */
export interface ToolSpec {
  name: string;
  description: string;
  /** The tool's JSON Schema for its arguments, as the server lists it. */
  parameters: Record<string, unknown>;
}

export interface ToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

export interface ToolResult {
  id: string;
  name: string;
  content: string;
  isError: boolean;
}

export type Message =
  | { role: "user"; text: string }
  | { role: "assistant"; text: string; toolCalls: ToolCall[] }
  | { role: "tool"; results: ToolResult[] };

export interface ModelRequest {
  model: string;
  system: string;
  messages: readonly Message[];
  tools: readonly ToolSpec[];
}

/** One answer of the model: its text, the tools it calls (none: its final answer), and what it cost. */
export interface ModelTurn {
  text: string;
  toolCalls: ToolCall[];
  inputTokens: number;
  outputTokens: number;
}

/** Names what part of a model's answer was not what its API promises (never the key, never the whole body). */
export class MalformedAnswer extends Error {
  constructor(what: string) {
    super(`malformed answer: ${what}`);
    this.name = "MalformedAnswer";
  }
}

export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
