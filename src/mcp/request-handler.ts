/** Our own check of a request's params, answering a malformed one with -32602 and a readable line instead of the SDK's dump. */
import {
  ProtocolError,
  ProtocolErrorCode,
  type Server,
  type ServerContext,
  type StandardSchemaV1,
} from "@modelcontextprotocol/server";
import { isPlainObject } from "../skill/json-schema.ts";
import { toWireError } from "./wire-error.ts";

interface ParseIssue {
  path: readonly PropertyKey[];
  message: string;
}

/** A params schema from `@modelcontextprotocol/core` (zod); only what this module uses of it. */
export interface ParamsSchema<T> {
  safeParse(value: unknown): { success: true; data: T } | { success: false; error: { issues: readonly ParseIssue[] } };
}

function describeIssues(method: string, issues: readonly ParseIssue[]): string {
  const parts = issues.map((i) => {
    const path = i.path.map(String).join(".");
    return path ? `${path}: ${i.message}` : i.message;
  });
  return `Invalid params for ${method}: ${parts.join("; ")}`;
}

/**
 * Accepts any params: the SDK's own check of a spec method's params answers a malformed request
 * with -32603 and a dump of schema issues, where the protocol wants -32602 and a readable line.
 * The strict check runs in `handle`, with our wording.
 */
const ANY_PARAMS: StandardSchemaV1<unknown, unknown> = {
  "~standard": { version: 1, vendor: "skill-central", validate: (value) => ({ value }) },
};

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

/**
 * Params that are valid without their schema: a plain object with every `required` key and no key
 * that neither list names, each value passing its test. The common request (a `tools/call` with a
 * name and arguments) then skips zod, which took ~2.4 µs of a ~50 µs call (CPU profile, client
 * and server on one core); anything else still goes through the schema and its exact messages.
 */
export interface QuickCheck {
  required: Readonly<Record<string, (value: unknown) => boolean>>;
  optional: Readonly<Record<string, (value: unknown) => boolean>>;
}

export const isString = (value: unknown): value is string => typeof value === "string";

function passes(raw: unknown, quick: QuickCheck): boolean {
  if (!isPlainObject(raw)) return false;
  for (const key of Object.keys(raw)) {
    const test = Object.hasOwn(quick.required, key)
      ? quick.required[key]
      : Object.hasOwn(quick.optional, key)
        ? quick.optional[key]
        : undefined;
    if (!test?.(raw[key])) return false;
  }
  return Object.keys(quick.required).every((key) => Object.hasOwn(raw, key));
}

/** The params of a `method` request, or throws -32602 "Invalid params for <method>: <path>: <problem>". */
export function checkParams<T>(method: string, schema: ParamsSchema<T>, raw: unknown, quick?: QuickCheck): T {
  if (quick && passes(raw, quick)) return raw as T;
  const parsed = schema.safeParse(raw);
  if (!parsed.success)
    throw toWireError(new ProtocolError(ProtocolErrorCode.InvalidParams, describeIssues(method, parsed.error.issues)));
  return parsed.data;
}

/**
 * Registers a handler for `method` whose params are validated against `schema` here: invalid
 * params are -32602 "Invalid params for <method>: <path>: <problem>", and whatever the handler
 * throws reaches the wire through `toWireError` (exact message, bounded length, no prefix).
 * `ctx` is the request's context (who asks: the 2026-07-28 envelope, the session).
 */
export function handle<T>(
  server: Server,
  method: string,
  schema: ParamsSchema<T>,
  handler: (params: T, ctx: ServerContext) => unknown,
  quick?: QuickCheck,
): void {
  server.setRequestHandler(method, { params: ANY_PARAMS }, async (raw, ctx) => {
    collectNowAndThen();
    const params = checkParams(method, schema, raw, quick);
    try {
      return (await handler(params, ctx)) as never;
    } catch (error) {
      throw toWireError(error);
    }
  });
}
