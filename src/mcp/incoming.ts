/** What an incoming JSON value is (a request, a notification, a response, a batch, junk), sorted the same way for both transports. */
import { JSONRPCMessageSchema } from "@modelcontextprotocol/core";
import type { JSONRPCMessage, RequestId } from "@modelcontextprotocol/server";

/** What a parsed incoming JSON value turned out to be, before it reaches the SDK. */
export type Incoming =
  | { kind: "message"; message: JSONRPCMessage }
  /** Answer -32600 Invalid Request with this id (null when the id cannot be read). */
  | { kind: "refuse"; id: RequestId | null; message: string }
  /** Nothing to answer: not a JSON-RPC message and no id. */
  | { kind: "skip" };

export const BATCH_REFUSED =
  "Invalid Request: JSON-RPC batches are not supported (MCP has none since 2025-06-18); send one message at a time";
export const INVALID_ID = "Invalid Request: id must be a string or an integer";

export const isRequestId = (id: unknown): id is RequestId =>
  typeof id === "string" || (typeof id === "number" && Number.isSafeInteger(id));

/**
 * Sorts a parsed message, for both transports. JSON-RPC 2.0 answers an Invalid Request with id
 * null when its id cannot be read; MCP (since 2025-06-18) has no batches, and a request id is a
 * string or an integer, never null. Without these checks the SDK's schema reads
 * `{"id": null, "method": …}` as a notification (the id is stripped) and the sender waits forever.
 */
export function classifyIncoming(json: unknown): Incoming {
  if (Array.isArray(json)) return { kind: "refuse", id: null, message: BATCH_REFUSED };
  if (typeof json !== "object" || json === null) return { kind: "skip" };
  const fields = json as { id?: unknown; method?: unknown; jsonrpc?: unknown; params?: unknown };
  const hasId = Object.hasOwn(fields, "id");
  if (hasId && !isRequestId(fields.id) && (typeof fields.method === "string" || fields.id !== null)) {
    return { kind: "refuse", id: null, message: INVALID_ID };
  }
  if (isPlainRequest(fields)) return { kind: "message", message: json as JSONRPCMessage };
  const parsed = JSONRPCMessageSchema.safeParse(json);
  if (parsed.success) return { kind: "message", message: parsed.data as JSONRPCMessage };
  if (hasId && isRequestId(fields.id))
    return { kind: "refuse", id: fields.id, message: "Invalid Request: not a JSON-RPC 2.0 message" };
  return { kind: "skip" };
}

const REQUEST_KEYS = new Set(["jsonrpc", "id", "method", "params"]);

/**
 * A request the schema would take as it is: only the four keys the (strict) request schema
 * allows, and params that are absent or an object without `_meta` (the one part of params it
 * checks). Most frames are such requests; they skip the schema, which took ~1.3 µs of a ~50 µs
 * `tools/call`. Anything else, `_meta` included, goes through it.
 */
function isPlainRequest(fields: { id?: unknown; method?: unknown; jsonrpc?: unknown; params?: unknown }): boolean {
  if (fields.jsonrpc !== "2.0" || typeof fields.method !== "string" || !isRequestId(fields.id)) return false;
  for (const key of Object.keys(fields)) if (!REQUEST_KEYS.has(key)) return false;
  const params = fields.params;
  if (params === undefined) return true;
  return typeof params === "object" && params !== null && !Array.isArray(params) && !Object.hasOwn(params, "_meta");
}
