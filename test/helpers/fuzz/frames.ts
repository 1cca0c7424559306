import { MAX_FRAME_BYTES } from "../../../src/mcp/stdio-transport.ts";
import { BACKTRACKING_INPUTS, deepValue, PROTO_KEYS, randomJson, randomString, setKey } from "./values.ts";
import type { Random } from "./random.ts";

export type RequestId = string | number;

/** What one request's reply must be. */
export interface Expected {
  id: RequestId;
  /** The method sent (decides the result's schema); undefined when it was not a request the server runs. */
  method?: string;
  /** The reply must be an error with one of these codes. */
  codes?: readonly number[];
  /** The reply must be a result. */
  result?: true;
  /** The result's text (of a prompt or a tool call) must be exactly this… */
  text?: string;
  /** …or start with it. */
  textIsPrefix?: boolean;
  /** The error message must start with this. */
  messageStart?: string;
}

/** One generated case: bytes to write and what the server must (and must not) answer. */
export interface FrameCase {
  label: string;
  /** Written in order; each piece is flushed before the next, so a line can arrive in parts. */
  writes: (string | Uint8Array)[];
  expect: Expected[];
  /** Replies with id null (Invalid Request) this case must cause. */
  nullRefusals: number;
  /** Ids inside the case that must never be answered (in a batch, in a line that is not JSON). */
  never: RequestId[];
  /** Ids that may be answered or not (both readings are defensible). */
  optional: RequestId[];
  /** A change to the layer made before the case's frames go out: content, or undefined to delete. */
  layerChange?: { path: string; content: string | Uint8Array | undefined };
}

/** What the server serves, learnt at the start of a session: the generators aim at it. */
export interface Context {
  era: "legacy" | "modern";
  tools: { name: string; inputSchema: unknown }[];
  prompts: { name: string; arguments: { name: string; required?: boolean }[] }[];
  uris: string[];
  /** Paths of hostile files in the layer (for layer changes). */
  hostilePaths: string[];
  /** Sentinel calls (method, params, exact text), for spot checks mid-session. */
  sentinelCalls: { method: string; params: Record<string, unknown>; text: string; textIsPrefix?: boolean }[];
  ids: IdSource;
  /** Generates a new hostile file for a layer change. */
  newHostileFile: (rng: Random) => { path: string; content: string | Uint8Array };
}

/** Fresh request ids in every shape JSON-RPC allows; never two alike in one session. */
export class IdSource {
  private n = 0;
  private usedEmpty = false;

  /** A number no other shape of `next` produces, for the integer/string twin case. */
  twin(): number {
    return 500_000 + ++this.n;
  }

  next(rng: Random): RequestId {
    const n = ++this.n;
    const shape = rng.weighted<string>([
      [40, "int"],
      [25, "string"],
      [5, "negative"],
      [5, "big"],
      [5, "numeric-string"],
      [5, "unicode"],
      [3, "long"],
      [1, "empty"],
    ]);
    switch (shape) {
      case "int":
        return 100_000 + n;
      case "negative":
        return -n;
      case "big":
        return Number.MAX_SAFE_INTEGER - n;
      case "numeric-string":
        return String(100_000 + n);
      case "unicode":
        return `ü-${n}-${rng.pick(["日本", "👩‍💻", "\u0000", "\n", '"', "\\", "\u2028"])}`;
      case "long":
        return `${"L".repeat(rng.pick([1000, 20_000]))}${n}`;
      case "empty":
        if (!this.usedEmpty) {
          this.usedEmpty = true;
          return "";
        }
        return `s${n}`;
      default:
        return `s${n}`;
    }
  }
}

const MODERN_META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "fuzz", version: "0" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

/** Params as the session's era expects them: 2026-07-28 requests carry their envelope in `_meta`. */
export function withEnvelope(ctx: Pick<Context, "era">, params: unknown): unknown {
  if (ctx.era !== "modern" || typeof params !== "object" || params === null || Array.isArray(params)) return params;
  return { ...(params as Record<string, unknown>), _meta: MODERN_META };
}

/** The method every connection answers with a result: ping, which the 2026-07-28 era removed, or the template list there. */
export function simpleMethod(ctx: Pick<Context, "era">): string {
  return ctx.era === "legacy" ? "ping" : "resources/templates/list";
}

/** A request of `simpleMethod`, and the result it must get. */
export function simpleRequest(
  ctx: Pick<Context, "era">,
  id: RequestId,
): { text: string; expected: Omit<Expected, "id"> } {
  const method = simpleMethod(ctx);
  return { text: requestText(id, method, withEnvelope(ctx, {})), expected: { method, result: true } };
}

export function requestText(id: RequestId, method: string, params: unknown): string {
  return JSON.stringify({ jsonrpc: "2.0", id, method, ...(params !== undefined && { params }) });
}

function line(text: string): string {
  return `${text}\n`;
}

/** Every method the server offers. */
const METHODS = [
  "initialize",
  "ping",
  "prompts/list",
  "prompts/get",
  "tools/list",
  "tools/call",
  "resources/list",
  "resources/read",
  "resources/templates/list",
  "completion/complete",
] as const;

const JSON_RPC = { invalidRequest: -32600, methodNotFound: -32601, invalidParams: -32602 } as const;

// ---------------------------------------------------------------------------------------------
// Params: sensible ones aimed at what the server serves, and broken ones

function argumentsFor(rng: Random, schema: unknown): unknown {
  const properties = (schema as { properties?: unknown } | null)?.properties;
  if (typeof properties !== "object" || properties === null || rng.chance(0.15)) return randomJson(rng, 3);
  const args: Record<string, unknown> = {};
  for (const [name, property] of Object.entries(properties as Record<string, unknown>)) {
    if (rng.chance(0.2)) continue;
    const type = (property as { type?: unknown } | null)?.type;
    let value: unknown;
    if (type === "string") value = rng.chance(0.15) ? rng.pick(BACKTRACKING_INPUTS) : randomString(rng);
    else if (type === "integer") value = rng.pick([0, 1, 3, -1, 1.5]);
    else if (type === "number") value = rng.pick([0, 1.5, -1e300, 7]);
    else if (type === "boolean") value = rng.chance(0.5);
    // Now and then a long list: templates that nest #each over it multiply their work.
    else if (type === "array")
      value = Array.from({ length: rng.chance(0.05) ? 2000 : rng.size(50) }, () =>
        rng.chance(0.5) ? randomString(rng, { huge: false }) : rng.int(10),
      );
    else value = randomJson(rng, 2);
    setKey(args, name, value);
  }
  if (rng.chance(0.1)) setKey(args, rng.pick(PROTO_KEYS), randomJson(rng, 1));
  return args;
}

function promptArguments(rng: Random, declared: readonly { name: string }[]): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  for (const { name } of declared) if (rng.chance(0.8)) setKey(args, name, randomString(rng));
  for (const name of ["name", "items", "flag", "x", "a", "topic"])
    if (rng.chance(0.15)) setKey(args, name, randomString(rng));
  if (rng.chance(0.08)) setKey(args, rng.pick(PROTO_KEYS), randomString(rng, { huge: false }));
  if (rng.chance(0.05)) setKey(args, "n", rng.pick<unknown>([5, null, true, ["x"], { a: 1 }]));
  return args;
}

function randomName(rng: Random, known: readonly string[]): string {
  return rng.weighted<string>([
    [known.length > 0 ? 80 : 0, known.length > 0 ? rng.pick(known) : ""],
    [10, rng.pick(["nope", "skills:compose", "", "sentinel-promp", "SENTINEL-PROMPT"])],
    [10, randomString(rng)],
  ]);
}

function cursor(rng: Random): string | undefined {
  return rng.weighted<string | undefined>([
    [70, undefined],
    [
      10,
      Buffer.from(
        JSON.stringify({
          l: rng.pick(["prompts/list", "tools/list", "resources/list"]),
          a: rng.pick(["h1", "", "zzz", "sentinel-tool"]),
        }),
      ).toString("base64url"),
    ],
    [10, randomString(rng)],
    [5, "e30"],
    [5, "!!!"],
  ]);
}

/** Params a client could sensibly send to `method`. */
function goodParams(rng: Random, ctx: Context, method: string): Record<string, unknown> {
  switch (method) {
    case "initialize":
      return {
        protocolVersion: rng.pick(["2025-11-25", "2025-06-18", "2024-11-05", "1999-01-01", "2026-07-28"]),
        capabilities: {},
        clientInfo: { name: "fuzz", version: "0" },
      };
    case "prompts/list":
    case "tools/list":
    case "resources/list":
    case "resources/templates/list": {
      const c = cursor(rng);
      return c === undefined ? {} : { cursor: c };
    }
    case "prompts/get": {
      const prompt = ctx.prompts.length > 0 && rng.chance(0.85) ? rng.pick(ctx.prompts) : undefined;
      const name = prompt?.name ?? randomName(rng, []);
      return { name, arguments: promptArguments(rng, prompt?.arguments ?? []) };
    }
    case "tools/call": {
      const tool = ctx.tools.length > 0 && rng.chance(0.85) ? rng.pick(ctx.tools) : undefined;
      return { name: tool?.name ?? randomName(rng, []), arguments: argumentsFor(rng, tool?.inputSchema) };
    }
    case "resources/read":
      return {
        uri:
          rng.chance(0.8) && ctx.uris.length > 0
            ? rng.pick(ctx.uris)
            : rng.pick([
                "skill://skills/nope",
                "skill://registry",
                "skill://skills/",
                `skill://skills/${randomString(rng)}`,
                randomString(rng),
              ]),
      };
    case "completion/complete": {
      const ref = rng.chance(0.6)
        ? { type: "ref/prompt", name: randomName(rng, ["skills:compose", ...ctx.prompts.map((p) => p.name)]) }
        : { type: "ref/resource", uri: rng.pick(["skill://skills/{id}", "skill://registry", randomString(rng)]) };
      const argumentName = rng.pick(["tags", "id", "tone", "name", randomString(rng, { huge: false })]);
      return {
        ref,
        argument: {
          name: argumentName,
          value: rng.chance(0.9) ? rng.pick(["", "k", "kmp, a", "h", "s", "calm"]) : randomString(rng),
        },
      };
    }
    default:
      return {};
  }
}

/** Params broken in one way: a field missing or of the wrong type, extra keys, huge or deep values. */
function brokenParams(rng: Random, ctx: Context, method: string): { params: unknown; text?: string } {
  const params = goodParams(rng, ctx, method) as Record<string, unknown>;
  const how = rng.weighted<string>([
    [20, "drop"],
    [25, "wrong-type"],
    [10, "extra"],
    [10, "not-object"],
    [8, "huge"],
    [8, "deep"],
    [4, "deeper-than-stack"],
    [8, "proto"],
  ]);
  const keys = Object.keys(params);
  switch (how) {
    case "drop":
      if (keys.length > 0) delete params[rng.pick(keys)];
      return { params };
    case "wrong-type": {
      const key = keys.length > 0 ? rng.pick(keys) : "name";
      setKey(params, key, randomJson(rng, 2));
      return { params };
    }
    case "extra":
      setKey(params, randomString(rng, { huge: false }), randomJson(rng, 2));
      return { params };
    case "not-object":
      return { params: rng.pick<unknown>([5, "params", null, [], [1, 2], true]) };
    case "huge": {
      const key = keys.length > 0 ? rng.pick(keys) : "name";
      setKey(params, key, "H".repeat(rng.pick([100_000, 2_000_000])));
      return { params };
    }
    case "deep": {
      const key = keys.length > 0 ? rng.pick(keys) : "arguments";
      setKey(params, key, deepValue(rng, rng.pick([33, 200, 3000])));
      return { params };
    }
    case "deeper-than-stack": {
      // Too deep for a recursive serialiser: written as text.
      const levels = rng.pick([20_000, 200_000]);
      const key = method === "tools/call" ? "arguments" : rng.pick(keys.length > 0 ? keys : ["x"]);
      const inner = `${"[".repeat(levels)}1${"]".repeat(levels)}`;
      const rest = JSON.stringify(withEnvelope(ctx, { ...params, [key]: "__DEEP__" }));
      return {
        params: undefined,
        text: rest.replace('"__DEEP__"', method === "tools/call" ? `{"d":${inner}}` : inner),
      };
    }
    default: {
      const target = method === "tools/call" || method === "prompts/get" ? "arguments" : undefined;
      const current = target ? params[target] : params;
      const holder: Record<string, unknown> =
        typeof current === "object" && current !== null && !Array.isArray(current)
          ? (current as Record<string, unknown>)
          : {};
      for (const key of PROTO_KEYS)
        if (rng.chance(0.4))
          setKey(holder, key, rng.chance(0.5) ? randomString(rng, { huge: false }) : { polluted: true });
      if (target) params[target] = holder;
      return { params };
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Cases

/** The skill or resource a request is about, for its label. */
function target(params: unknown): string {
  if (typeof params !== "object" || params === null) return "";
  const { name, uri } = params as { name?: unknown; uri?: unknown };
  const what = typeof name === "string" ? name : typeof uri === "string" ? uri : undefined;
  return what === undefined ? "" : ` ${JSON.stringify(what.length > 60 ? `${what.slice(0, 60)}…` : what)}`;
}

type Generator = (rng: Random, ctx: Context) => FrameCase;

/** One request and its reply: `frame` is one line (its newline added), or the exact pieces to write. */
function single(
  label: string,
  id: RequestId,
  frame: string | (string | Uint8Array)[],
  expected: Omit<Expected, "id">,
): FrameCase {
  return {
    label,
    writes: typeof frame === "string" ? [line(frame)] : frame,
    expect: [{ id, ...expected }],
    nullRefusals: 0,
    never: [],
    optional: [],
  };
}

function nothing(
  label: string,
  writes: (string | Uint8Array)[],
  never: RequestId[] = [],
  optional: RequestId[] = [],
): FrameCase {
  return { label, writes, expect: [], nullRefusals: 0, never, optional };
}

function refusedWithNull(
  label: string,
  writes: (string | Uint8Array)[],
  count: number,
  never: RequestId[] = [],
): FrameCase {
  return { label, writes, expect: [], nullRefusals: count, never, optional: [] };
}

/** What a well-formed request for `method` may answer. */
function expectationFor(method: string, params: unknown, ctx: Context): Omit<Expected, "id"> {
  // The 2026-07-28 protocol has no ping.
  if (method === "ping") return ctx.era === "legacy" ? { method, result: true } : { codes: [JSON_RPC.methodNotFound] };
  if (
    method === "prompts/list" ||
    method === "tools/list" ||
    method === "resources/list" ||
    method === "resources/templates/list"
  ) {
    // A cursor the fuzzer made up may be refused (-32602); without one, every list answers.
    const hasCursor = typeof params === "object" && params !== null && "cursor" in params;
    return hasCursor ? { method } : { method, result: true };
  }
  return { method };
}

const GENERATORS: Record<string, readonly [number, Generator]> = {
  request: [
    30,
    (rng, ctx) => {
      const method = rng.pick(METHODS);
      const params = goodParams(rng, ctx, method);
      const id = ctx.ids.next(rng);
      return single(
        `request ${method}${target(params)}`,
        id,
        requestText(id, method, withEnvelope(ctx, params)),
        expectationFor(method, params, ctx),
      );
    },
  ],
  "broken-params": [
    22,
    (rng, ctx) => {
      const method = rng.pick(METHODS);
      const { params, text } = brokenParams(rng, ctx, method);
      const id = ctx.ids.next(rng);
      const frame =
        text !== undefined
          ? `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":${JSON.stringify(method)},"params":${text}}`
          : requestText(id, method, withEnvelope(ctx, params));
      // Params that are not an object: Invalid Request or Invalid params, as the transport reads them.
      const notObject = text === undefined && (typeof params !== "object" || params === null || Array.isArray(params));
      return single(
        `broken params for ${method}${target(params)}`,
        id,
        frame,
        notObject && params !== undefined
          ? { method, codes: [JSON_RPC.invalidRequest, JSON_RPC.invalidParams] }
          : { method },
      );
    },
  ],
  "sentinel-spot-check": [
    3,
    (rng, ctx) => {
      const call = rng.pick(ctx.sentinelCalls);
      const id = ctx.ids.next(rng);
      return single(
        `sentinel ${call.method} ${String(call.params.name)}`,
        id,
        requestText(id, call.method, withEnvelope(ctx, call.params)),
        { method: call.method, result: true, text: call.text, ...(call.textIsPrefix && { textIsPrefix: true }) },
      );
    },
  ],
  "unknown-method": [
    4,
    (rng, ctx) => {
      const method = rng.pick([
        "fuzz/unknown",
        "prompts/gets",
        "tools/Call",
        "rpc.discover",
        "notifications/initialized",
        "logging/setLevel",
        "resources/subscribes",
        "sampling/createMessage",
        `x/${randomString(rng, { huge: false })}`,
        "PING",
      ]);
      const id = ctx.ids.next(rng);
      // A notification's name sent as a request, or a capability we do not declare, is still not a method we serve.
      return single(`unknown method ${method.slice(0, 40)}`, id, requestText(id, method, withEnvelope(ctx, {})), {
        codes: [JSON_RPC.methodNotFound],
      });
    },
  ],
  "no-envelope": [
    1,
    (rng, ctx) => {
      // Without the 2026-07-28 envelope a modern connection may refuse the request: any answer will do.
      const method = rng.pick(METHODS);
      const id = ctx.ids.next(rng);
      return single(`${method} without an envelope`, id, requestText(id, method, goodParams(rng, ctx, method)), {
        method,
      });
    },
  ],
  "odd-method": [
    2,
    (rng, ctx) => {
      const method = rng.pick(["", " ", "server/discover", "ping ", "m".repeat(100_000)]);
      const id = ctx.ids.next(rng);
      return single(
        `odd method ${JSON.stringify(method.slice(0, 20))}`,
        id,
        requestText(id, method, withEnvelope(ctx, {})),
        {},
      );
    },
  ],
  "invalid-id": [
    5,
    (rng) => {
      const idText = rng.pick([
        "null",
        "{}",
        '{"a":1}',
        "[]",
        "[1]",
        "true",
        "false",
        "1.5",
        "-0.5",
        "1e400",
        "9007199254740993",
        "-9007199254740993",
        "1e16",
      ]);
      const method = rng.pick(["ping", "tools/list", "initialize", "tools/call"]);
      const frame = rng.chance(0.5)
        ? `{"jsonrpc":"2.0","id":${idText},"method":"${method}","params":{}}`
        : `{"jsonrpc":"2.0","method":"${method}","params":{},"id":${idText}}`;
      return refusedWithNull(`invalid id ${idText} on ${method}`, [line(frame)], 1);
    },
  ],
  "invalid-id-no-method": [
    1,
    (rng) => {
      const idText = rng.pick(["{}", "[]", "true", "1.5"]);
      return refusedWithNull(
        `invalid id ${idText} without a method`,
        [line(`{"jsonrpc":"2.0","id":${idText},"result":{}}`)],
        1,
      );
    },
  ],
  batch: [
    4,
    (rng, ctx) => {
      const inner: RequestId[] = [];
      const items = Array.from({ length: rng.range(0, 4) }, () => {
        const kind = rng.pick(["request", "notification", "scalar", "nested"]);
        if (kind === "request") {
          const id = ctx.ids.next(rng);
          inner.push(id);
          return JSON.parse(requestText(id, rng.pick(["ping", "tools/list"]), {})) as unknown;
        }
        if (kind === "notification") return { jsonrpc: "2.0", method: "notifications/initialized" };
        if (kind === "nested") {
          const id = ctx.ids.next(rng);
          inner.push(id);
          return [JSON.parse(requestText(id, "ping", {})) as unknown];
        }
        return rng.pick<unknown>([1, "x", null]);
      });
      return refusedWithNull(`batch of ${items.length}`, [line(JSON.stringify(items))], 1, inner);
    },
  ],
  notification: [
    6,
    (rng, ctx) => {
      const method = rng.pick([
        "notifications/initialized",
        "notifications/cancelled",
        "notifications/progress",
        "notifications/roots/list_changed",
        "notifications/unknown",
        "ping",
        "tools/call",
        randomString(rng, { huge: false }),
      ]);
      const params = rng.weighted<unknown>([
        [5, method === "notifications/cancelled" ? { requestId: `never-sent-${rng.int(1000)}`, reason: "fuzz" } : {}],
        [3, randomJson(rng, 2)],
        [1, undefined],
      ]);
      return nothing(`notification ${method.slice(0, 40)}`, [
        line(
          JSON.stringify({
            jsonrpc: "2.0",
            method,
            ...(params !== undefined && { params: withEnvelope(ctx, params) }),
          }),
        ),
      ]);
    },
  ],
  "client-response": [
    2,
    (rng, ctx) => {
      const id = ctx.ids.next(rng);
      const valid = rng.chance(0.7);
      const body = rng.chance(0.5)
        ? { result: valid ? { x: randomJson(rng, 1) } : rng.pick<unknown>([5, "x", null, []]) }
        : { error: valid ? { code: rng.pick([-32601, 1, 0]), message: "client says no" } : { code: "x" } };
      // A well-formed response is never answered; a malformed one may be refused as an Invalid Request with its id.
      return valid
        ? nothing("a response from the client", [line(JSON.stringify({ jsonrpc: "2.0", id, ...body }))], [id])
        : nothing(
            "a malformed response from the client",
            [line(JSON.stringify({ jsonrpc: "2.0", id, ...body }))],
            [],
            [id],
          );
    },
  ],
  "not-json": [
    5,
    (rng, ctx) => {
      const id = ctx.ids.next(rng);
      const request = requestText(id, "ping", {});
      const text = rng.pick([
        "hello",
        "{",
        "}{",
        "NaN",
        "undefined",
        request.slice(0, -1),
        `${request} trailing`,
        `${request},`,
        request.replace(/"/g, "'"),
        `${request.slice(0, -1)},}`,
        `// comment\n`.trim(),
        `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":"ping",}`,
        "\u0000\u0001\u0002",
        "Content-Length: 52",
      ]);
      const bytes = rng.chance(0.2)
        ? Buffer.from(Array.from({ length: rng.range(1, 200) }, () => rng.int(256)).filter((b) => b !== 10))
        : Buffer.from(text);
      return nothing("a line that is not JSON", [bytes, "\n"], [id]);
    },
  ],
  "json-scalar": [
    2,
    (rng) =>
      nothing("a JSON value that is not an object", [
        line(rng.pick(["5", '"ping"', "null", "true", "1e999", '""', "-0"])),
      ]),
  ],
  blank: [2, (rng) => nothing("a blank line", [rng.pick(["\n", "   \n", "\t\n", "\r\n", "\n\n\n"])])],
  bom: [
    1,
    (rng, ctx) => {
      const id = ctx.ids.next(rng);
      // RFC 8259 lets a parser ignore a byte order mark, or refuse the text: either reading holds.
      return nothing(
        "a request behind a byte order mark",
        [line(`\ufeff${requestText(id, "ping", withEnvelope(ctx, {}))}`)],
        [],
        [id],
      );
    },
  ],
  "envelope-broken": [
    4,
    (rng, ctx) => {
      const id = ctx.ids.next(rng);
      const variant = rng.pick([
        "version-1",
        "no-version",
        "version-number",
        "method-number",
        "method-null",
        "method-object",
      ]);
      const base: Record<string, unknown> = { jsonrpc: "2.0", id, method: "ping", params: withEnvelope(ctx, {}) };
      if (variant === "version-1") base.jsonrpc = "1.0";
      if (variant === "no-version") delete base.jsonrpc;
      if (variant === "version-number") base.jsonrpc = 2.0;
      if (variant === "method-number") base.method = 5;
      if (variant === "method-null") base.method = null;
      if (variant === "method-object") base.method = { name: "ping" };
      return single(`broken envelope: ${variant}`, id, JSON.stringify(base), { codes: [JSON_RPC.invalidRequest] });
    },
  ],
  "extra-fields": [
    2,
    (rng, ctx) => {
      const id = ctx.ids.next(rng);
      const method = simpleMethod(ctx);
      const frame: Record<string, unknown> = { jsonrpc: "2.0", id, method, params: withEnvelope(ctx, {}) };
      setKey(frame, rng.pick(["extra", "__proto__", "constructor", "result"]), randomJson(rng, 1, { huge: false }));
      // A request that also carries `result` is not quite a request: an answer is optional.
      return frame.result !== undefined
        ? nothing("request with a result field", [line(JSON.stringify(frame))], [], [id])
        : single("request with extra fields", id, JSON.stringify(frame), { method });
    },
  ],
  "duplicate-id-key": [
    1,
    (rng, ctx) => {
      const first = ctx.ids.next(rng);
      const last = ctx.ids.next(rng);
      // JSON.parse keeps the last of duplicate keys: the reply goes to that id, never the first.
      const method = simpleMethod(ctx);
      const frame = `{"jsonrpc":"2.0","id":${JSON.stringify(first)},"method":"${method}","params":${JSON.stringify(withEnvelope(ctx, {}))},"id":${JSON.stringify(last)}}`;
      return {
        label: "duplicate id keys",
        writes: [line(frame)],
        expect: [{ id: last, method, result: true }],
        nullRefusals: 0,
        never: [first],
        optional: [],
      };
    },
  ],
  "twin-ids": [
    1,
    (_rng, ctx) => {
      // 7 and "7" are different ids: both are answered, each with its own.
      const number = ctx.ids.twin();
      const string = `${number}`;
      return {
        label: "an integer id and the same digits as a string",
        writes: [line(simpleRequest(ctx, number).text), line(simpleRequest(ctx, string).text)],
        expect: [
          { id: number, ...simpleRequest(ctx, number).expected },
          { id: string, ...simpleRequest(ctx, string).expected },
        ],
        nullRefusals: 0,
        never: [],
        optional: [],
      };
    },
  ],
  "partial-line": [
    4,
    (rng, ctx) => {
      const method = rng.pick(METHODS);
      const params = goodParams(rng, ctx, method);
      const id = ctx.ids.next(rng);
      const bytes = Buffer.from(line(requestText(id, method, withEnvelope(ctx, params))));
      const cuts = Array.from({ length: rng.range(1, 4) }, () => rng.int(bytes.length)).sort((a, b) => a - b);
      const writes: Uint8Array[] = [];
      let at = 0;
      // Cuts may fall inside a multi-byte character: the transport must join bytes, not decoded text.
      for (const cut of [...cuts, bytes.length]) {
        writes.push(bytes.subarray(at, cut));
        at = cut;
      }
      return single(`${method} in ${writes.length} pieces`, id, writes, expectationFor(method, params, ctx));
    },
  ],
  "carriage-return": [
    3,
    (rng, ctx) => {
      const a = ctx.ids.next(rng);
      const b = ctx.ids.next(rng);
      const { text: first, expected } = simpleRequest(ctx, a);
      const second = simpleRequest(ctx, b).text;
      const variant = rng.pick(["crlf", "crcrlf", "cr-inside", "cr-between"]);
      if (variant === "crlf") return single("request ending in CRLF", a, [`${first}\r\n`], expected);
      if (variant === "crcrlf") return single("request ending in CR CR LF", a, [`${first}\r\r\n`], expected);
      if (variant === "cr-inside")
        return single("request with CR as whitespace", a, [`${first.replace(/,/g, ",\r")}\n`], expected);
      // A lone CR does not end a line: two requests joined by one are one line that is not JSON.
      return nothing("two requests joined by a lone CR", [`${first}\r${second}\n`], [a, b]);
    },
  ],
  "huge-id": [
    1,
    (rng, ctx) => {
      const id = `${"I".repeat(rng.pick([10_000, 300_000]))}-${String(ctx.ids.next(rng))}`;
      const { text, expected } = simpleRequest(ctx, id);
      return single("a request with a huge string id", id, text, expected);
    },
  ],
  oversized: [
    0.15,
    (rng, ctx) => {
      const id = ctx.ids.next(rng);
      const filler = "o".repeat(MAX_FRAME_BYTES + rng.int(1000));
      const variant = rng.pick(["id-last", "id-first", "id-null", "no-id", "batch"]);
      const params = `{"name":"sentinel-echo","arguments":{"x":"${filler}","id":"inner"}}`;
      const limit = "Request too large: frames are limited to 16 MiB";
      // The id nested in params ("inner") is not the frame's: it is never answered.
      if (variant === "id-last")
        return {
          ...single(
            "oversized frame, id last",
            id,
            [`{"jsonrpc":"2.0","method":"tools/call","params":${params},"id":${JSON.stringify(id)}}\n`],
            { codes: [JSON_RPC.invalidRequest], messageStart: limit },
          ),
          never: ["inner"],
        };
      if (variant === "id-first")
        return {
          ...single(
            "oversized frame, id first",
            id,
            [`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":"tools/call","params":${params}}\n`],
            { codes: [JSON_RPC.invalidRequest], messageStart: limit },
          ),
          never: ["inner"],
        };
      if (variant === "id-null")
        return refusedWithNull(
          "oversized frame, id null",
          [`{"jsonrpc":"2.0","method":"tools/call","params":${params},"id":null}\n`],
          1,
        );
      if (variant === "batch")
        return refusedWithNull(
          "oversized batch",
          [`[{"jsonrpc":"2.0","method":"tools/call","params":${params},"id":${JSON.stringify(id)}}]\n`],
          1,
          [id],
        );
      return nothing(
        "oversized notification",
        [`{"jsonrpc":"2.0","method":"notifications/progress","params":${params}}\n`],
        ["inner"],
      );
    },
  ],
  "layer-change": [
    1.5,
    (rng, ctx) => {
      const fresh = ctx.newHostileFile(rng);
      const variant = ctx.hostilePaths.length > 0 ? rng.pick(["rewrite", "delete", "add"]) : "add";
      if (variant === "add") return { ...nothing(`layer: add ${fresh.path}`, []), layerChange: fresh };
      const path = rng.pick(ctx.hostilePaths);
      return {
        ...nothing(`layer: ${variant} ${path}`, []),
        layerChange: { path, content: variant === "delete" ? undefined : fresh.content },
      };
    },
  ],
};

const WEIGHTED = Object.entries(GENERATORS).map(([name, [weight, generate]]) => [weight, { name, generate }] as const);

/** One frame case, drawn from its own generator. */
export function frameCase(rng: Random, ctx: Context, options: { layerChanges: boolean }): FrameCase & { kind: string } {
  let choice = rng.weighted(WEIGHTED);
  while (!options.layerChanges && choice.name === "layer-change") choice = rng.weighted(WEIGHTED);
  return { kind: choice.name, ...choice.generate(rng, ctx) };
}
