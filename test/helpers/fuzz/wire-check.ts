import {
  CallToolResultSchema,
  CompleteResultSchema,
  GetPromptResultSchema,
  InitializeResultSchema,
  ListPromptsResultSchema,
  ListResourcesResultSchema,
  ListResourceTemplatesResultSchema,
  ListToolsResultSchema,
  ReadResourceResultSchema,
} from "@modelcontextprotocol/core";
import type { Expected } from "./frames.ts";

/** One message the server wrote, as read back from its stdout. */
export interface WireMessage {
  jsonrpc?: unknown;
  id?: unknown;
  method?: unknown;
  params?: unknown;
  result?: unknown;
  error?: { code?: unknown; message?: unknown; data?: unknown };
}

interface Schema {
  safeParse(value: unknown): {
    success: boolean;
    error?: { issues: readonly { path: readonly PropertyKey[]; message: string }[] };
  };
}

/** The result each method must have, in the SDK's own schemas. */
const RESULT_SCHEMAS: Record<string, Schema> = {
  initialize: InitializeResultSchema,
  // Empty in the 2025-11-25 era; a 2026-07-28 result carries its envelope fields.
  ping: {
    safeParse: (value) =>
      typeof value === "object" && value !== null && !Array.isArray(value)
        ? { success: true }
        : { success: false, error: { issues: [{ path: [], message: "not an object" }] } },
  },
  "prompts/list": ListPromptsResultSchema,
  "prompts/get": GetPromptResultSchema,
  "tools/list": ListToolsResultSchema,
  "tools/call": CallToolResultSchema,
  "resources/list": ListResourcesResultSchema,
  "resources/read": ReadResourceResultSchema,
  "resources/templates/list": ListResourceTemplatesResultSchema,
  "completion/complete": CompleteResultSchema,
};

/**
 * Internal errors (-32603) a well-behaved server may still send: a skill's file changing on disk
 * between listing and reading (the fuzzer rewrites files mid-session). Anything else that
 * reaches the client as -32603 is an exception the server did not expect: a bug.
 */
const EXPECTED_INTERNAL = [/^The skill's file changed on disk and can no longer be read as it was listed/];

const INTERNAL_ERROR = -32603;

/** A stable key for an id: 7 and "7" are different ids. */
export function idKey(id: unknown): string {
  return `${typeof id}:${typeof id === "string" ? id : JSON.stringify(id)}`;
}

export function shortId(id: unknown): string {
  const text = JSON.stringify(id) ?? String(id);
  return text.length > 60 ? `${text.slice(0, 40)}…(${text.length} chars)` : text;
}

/** Reads one stdout line: a JSON-RPC 2.0 message, or a problem that says why it is not. */
export function readLine(line: string): { message: WireMessage } | { problem: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return { problem: `stdout carried a line that is not JSON: ${line.slice(0, 200)}` };
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    return { problem: `stdout carried JSON that is not a JSON-RPC message: ${line.slice(0, 200)}` };
  const message = parsed as WireMessage;
  if (message.jsonrpc !== "2.0") return { problem: `a message without "jsonrpc": "2.0": ${line.slice(0, 200)}` };
  if ("method" in message) {
    if (typeof message.method !== "string")
      return { problem: `a message whose method is not a string: ${line.slice(0, 200)}` };
    if ("id" in message)
      return { problem: `the server sent a request (${message.method}); it has nothing to ask a client` };
    if (!message.method.startsWith("notifications/"))
      return { problem: `the server sent a notification that is not one: ${message.method}` };
    return { message };
  }
  if (!("id" in message)) return { problem: `a response without an id: ${line.slice(0, 200)}` };
  const id = message.id;
  if (id !== null && typeof id !== "string" && !(typeof id === "number" && Number.isSafeInteger(id)))
    return { problem: `a response whose id is neither a string, an integer nor null: ${shortId(id)}` };
  const hasResult = "result" in message;
  const hasError = "error" in message;
  if (hasResult === hasError)
    return {
      problem: `a response with ${hasResult ? "both a result and an error" : "neither a result nor an error"} (id ${shortId(id)})`,
    };
  if (hasResult && (typeof message.result !== "object" || message.result === null || Array.isArray(message.result)))
    return { problem: `a result that is not an object (id ${shortId(id)})` };
  if (hasError) {
    const error = message.error;
    if (typeof error !== "object" || error === null)
      return { problem: `an error that is not an object (id ${shortId(id)})` };
    if (!Number.isInteger(error.code))
      return { problem: `an error code that is not an integer: ${JSON.stringify(error.code)} (id ${shortId(id)})` };
    if (typeof error.message !== "string")
      return { problem: `an error message that is not a string (id ${shortId(id)})` };
    const extra = Object.keys(error).filter((k) => k !== "code" && k !== "message" && k !== "data");
    if (extra.length > 0) return { problem: `an error with fields JSON-RPC does not define: ${extra.join(", ")}` };
  }
  return { message };
}

function describeIssues(issues: readonly { path: readonly PropertyKey[]; message: string }[]): string {
  return issues
    .slice(0, 3)
    .map((i) => `${i.path.map(String).join(".") || "(root)"}: ${i.message}`)
    .join("; ");
}

function resultText(result: unknown, method: string): string | undefined {
  if (method === "tools/call")
    return ((result as { content?: { text?: string }[] }).content ?? []).map((c) => c.text ?? "").join("");
  if (method === "prompts/get")
    return ((result as { messages?: { content?: { text?: string } }[] }).messages ?? [])
      .map((m) => m.content?.text ?? "")
      .join("");
  return undefined;
}

/** What is wrong with a response to a request we sent (already known to be well-formed JSON-RPC), or undefined. */
export function checkReply(message: WireMessage, expected: Omit<Expected, "id">): string | undefined {
  if (message.error !== undefined) {
    const { code, message: text } = message.error as { code: number; message: string };
    if (code === INTERNAL_ERROR && !EXPECTED_INTERNAL.some((pattern) => pattern.test(text)))
      return `internal error (-32603): ${text.slice(0, 300)}`;
    if (expected.result) return `expected a result, got error ${code}: ${text.slice(0, 300)}`;
    if (expected.codes && !expected.codes.includes(code))
      return `expected error ${expected.codes.join(" or ")}, got ${code}: ${text.slice(0, 300)}`;
    if (expected.messageStart !== undefined && !text.startsWith(expected.messageStart))
      return `expected an error message starting "${expected.messageStart}", got: ${text.slice(0, 300)}`;
    return undefined;
  }
  if (expected.codes)
    return `expected error ${expected.codes.join(" or ")}, got a result: ${JSON.stringify(message.result).slice(0, 300)}`;
  const schema = expected.method === undefined ? undefined : RESULT_SCHEMAS[expected.method];
  if (schema) {
    const parsed = schema.safeParse(message.result);
    if (!parsed.success)
      return `the ${expected.method} result does not match the protocol's schema: ${describeIssues(parsed.error?.issues ?? [])}`;
  }
  if (expected.text !== undefined && expected.method !== undefined) {
    const text = resultText(message.result, expected.method);
    const matches = expected.textIsPrefix ? text?.startsWith(expected.text) === true : text === expected.text;
    if (!matches)
      return `expected the text ${expected.textIsPrefix ? "to start with " : ""}${JSON.stringify(expected.text)}, got ${JSON.stringify(text?.slice(0, 300))}`;
  }
  return undefined;
}
