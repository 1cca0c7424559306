import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { Protocol } from "@modelcontextprotocol/sdk/shared/protocol.js";
import { ErrorCode } from "@modelcontextprotocol/sdk/types.js";
import { toWireError, WireError } from "./wire-error.ts";

interface ParseIssue {
  path: PropertyKey[];
  message: string;
}

/** The SDK's zod request schemas; only what this module uses of them. */
interface RequestSchema<T> {
  shape: { method: unknown };
  safeParse(value: unknown): { success: true; data: T } | { success: false; error: { issues: ParseIssue[] } };
  pick(mask: { method: true }): { passthrough(): unknown };
}

function describeIssues(method: string, issues: readonly ParseIssue[]): string {
  const parts = issues.map((i) => {
    const path = i.path.filter((p) => p !== "params").map(String).join(".");
    return path ? `${path}: ${i.message}` : i.message;
  });
  return `Invalid params for ${method}: ${parts.join("; ")}`;
}

/**
 * Registers a handler whose params are validated by us, not by the SDK: the SDK answers a
 * malformed request with -32603 and a zod dump, the protocol wants -32602 and a readable line.
 * The SDK sees a schema that accepts any params for the method; the strict schema runs here.
 *
 * Registered through `Protocol`'s method, not `Server`'s: the latter wraps `tools/call` in its
 * own params check (again -32602 with a zod dump, "MCP error" prefix included) and re-validates
 * every result, which our results satisfy by construction.
 */
/**
 * Requests allocate briefly (params, results, frames) and the engine lets its heap grow in
 * proportion to the live set (every skill and template) before collecting: a session of a few
 * thousand calls over 1,000 skills grew peak RSS by ~27 MB. A young-generation collection every
 * this-many requests (well under a millisecond each) halves that growth; pipelined throughput
 * stays within noise (~22,000 calls/s).
 */
const REQUESTS_PER_COLLECTION = 128;
let requestsSinceCollection = 0;

function collectNowAndThen(): void {
  if (++requestsSinceCollection < REQUESTS_PER_COLLECTION) return;
  requestsSinceCollection = 0;
  Bun.gc(false);
}

export function handle<T>(server: Server, schema: RequestSchema<T>, method: string, handler: (request: T) => unknown): void {
  const lenient = schema.pick({ method: true }).passthrough() as Parameters<Server["setRequestHandler"]>[0];
  Protocol.prototype.setRequestHandler.call(server, lenient, async (raw: unknown) => {
    collectNowAndThen();
    const parsed = schema.safeParse(raw);
    if (!parsed.success) throw new WireError(ErrorCode.InvalidParams, describeIssues(method, parsed.error.issues));
    try {
      return (await handler(parsed.data)) as never;
    } catch (error) {
      throw toWireError(error);
    }
  });
}
