import { describe, expect, test } from "bun:test";
import { CallToolRequestParamsSchema, JSONRPCMessageSchema } from "@modelcontextprotocol/core";
import { classifyIncoming } from "../../src/mcp/incoming.ts";
import { checkParams, isString, type QuickCheck } from "../../src/mcp/request-handler.ts";
import { isPlainObject } from "../../src/skill/json-schema.ts";
import { mulberry32 } from "../helpers/random.ts";

/**
 * The common frame (a request with plain params) and the common `tools/call` params skip their
 * zod schemas. Skipping must never change an answer: whatever the quick path takes, the schema
 * takes too, with the same value; everything else still gets the schema's verdict and message.
 */
const random = mulberry32(5);
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const values: unknown[] = [
  "s",
  "",
  0,
  1,
  -1,
  1.5,
  2 ** 53,
  true,
  null,
  [],
  [1],
  {},
  { a: 1 },
  { _meta: {} },
  { progressToken: "p" },
];

function randomObject(keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of keys) if (random() < 0.6) out[key] = pick(values);
  return out;
}

const TOOLS_CALL: QuickCheck = { required: { name: isString }, optional: { arguments: isPlainObject } };

function outcome(run: () => unknown): { ok: true; value: unknown } | { ok: false; message: string } {
  try {
    return { ok: true, value: run() };
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  }
}

describe("quick checks give the schema's answers", () => {
  test("tools/call params: 3,000 generated objects, with and without the quick path", () => {
    for (let i = 0; i < 3000; i++) {
      const raw = random() < 0.1 ? pick(values) : randomObject(["name", "arguments", "_meta", "task", "other"]);
      if (random() < 0.5 && isPlainObject(raw)) raw.name = pick(["echo", 3, undefined]);
      const quick = outcome(() => checkParams("tools/call", CallToolRequestParamsSchema, raw, TOOLS_CALL));
      const schema = outcome(() => checkParams("tools/call", CallToolRequestParamsSchema, raw));
      expect({ raw, quick }).toEqual({ raw, quick: schema });
    }
  });

  test("the usual call takes the quick path: its params come back as they were sent", () => {
    const raw = { name: "echo", arguments: { a: [1] } };
    expect(checkParams("tools/call", CallToolRequestParamsSchema, raw, TOOLS_CALL)).toBe(raw);
    // With _meta it is the schema's (which checks _meta).
    const withMeta = { name: "echo", _meta: { progressToken: 1 } };
    expect(checkParams("tools/call", CallToolRequestParamsSchema, withMeta, TOOLS_CALL)).not.toBe(withMeta);
  });

  test("incoming frames: 3,000 generated messages are classified as the schema alone would", () => {
    for (let i = 0; i < 3000; i++) {
      const json: Record<string, unknown> = randomObject(["id", "method", "params", "result", "error", "extra"]);
      if (random() < 0.8) json.jsonrpc = pick(["2.0", "2.0", "1.0", 2]);
      if (random() < 0.6) json.method = pick(["tools/call", "ping", 5]);
      if (random() < 0.6) json.id = pick([1, "a", 1.5, null, -3, 2 ** 60]);
      const got = classifyIncoming(json);
      if (got.kind !== "message") continue;
      const parsed = JSONRPCMessageSchema.safeParse(json);
      expect({ json, accepted: parsed.success }).toEqual({ json, accepted: true });
      expect({ json, message: got.message }).toEqual({ json, message: parsed.data as never });
    }
  });

  test("a plain request is passed on as it was parsed; one with _meta or an extra key goes through the schema", () => {
    const plain = { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "x" } };
    expect(classifyIncoming(plain)).toEqual({ kind: "message", message: plain as never });
    expect((classifyIncoming(plain) as { message: unknown }).message).toBe(plain);
    const meta = { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "x", _meta: { progressToken: 1 } } };
    expect((classifyIncoming(meta) as { message: unknown }).message).not.toBe(meta);
    expect(classifyIncoming({ jsonrpc: "2.0", id: 7, method: "ping", extra: 1 })).toEqual({
      kind: "refuse",
      id: 7,
      message: "Invalid Request: not a JSON-RPC 2.0 message",
    });
  });
});
