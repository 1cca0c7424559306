import { createMcpHandler, isLegacyRequest, readRequestBody, type McpHttpHandler } from "@modelcontextprotocol/server";
import type { BearerTokens } from "./http/bearer-tokens.ts";
import { logValue, loggedPath, MAX_LOGGED_MESSAGE_CHARS, pathOfTarget } from "./http/access-log.ts";
import { Capacity } from "./http/capacity.ts";
import { errorResponse, parseAllowedOrigin, RequestGuard } from "./http/request-guard.ts";
import { Sessions, shortSessionId } from "./http/sessions.ts";
import { classifyIncoming } from "./incoming.ts";
import type { ListKind } from "./feature.ts";
import { watchListChanges } from "./list-changed.ts";
import type { LiveRegistry } from "./registry-source.ts";
import { createServer } from "./server.ts";

export const MCP_PATH = "/mcp";
/** Every path the server answers; the access log shows any other path only by its shape. */
const ROUTES = [MCP_PATH, "/healthz", "/readyz"] as const;
/** Request bodies above this are refused with 413 (the SDK's own default). */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;
export const DEFAULT_PORT = 8740;
export const DEFAULT_HOST = "127.0.0.1";
export const DEFAULT_MAX_SESSIONS = 1000;
export const DEFAULT_SESSION_IDLE_MS = 30 * 60_000;
export const DEFAULT_KEEPALIVE_MS = 15_000;
/** After SIGTERM, in-flight requests get this long before streams and connections are cut. */
export const DRAIN_MS = 1_500;

export interface HttpOptions {
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** No sessions and nothing kept per client: every request stands alone (replicas behind a load balancer). */
  stateless: boolean;
  /** Skills are watched: declare listChanged and announce changes. */
  live: boolean;
  tokens: BearerTokens | undefined;
  allowedOrigins: readonly string[];
  allowedHosts: readonly string[];
  maxSessions: number;
  sessionIdleMs: number;
  keepAliveMs: number;
  /** One line per request (the access log) and anything else worth telling the operator. */
  log: (line: string) => void;
}

export interface HttpServing {
  /** The MCP endpoint, e.g. http://127.0.0.1:8740/mcp. */
  url: string;
  port: number;
  /** Stops accepting, lets in-flight requests finish (up to `DRAIN_MS`), then ends every stream and connection. */
  stop(): Promise<void>;
}

/** Addresses only this machine can reach. Anything else needs tokens. */
export function isLoopback(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, "");
  return h === "localhost" || h === "::1" || /^127(\.\d{1,3}){3}$/.test(h);
}

export class HttpConfigError extends Error {
  override readonly name = "HttpConfigError";
}

/** What the access log shows of one request; filled in as the request is handled. */
interface Exchange {
  rpc?: string;
  session?: string;
  label?: string;
}

/**
 * MCP over Streamable HTTP on one port, both eras: 2025-11-25 clients get sessions (or, with
 * `stateless`, per-request serving); 2026-07-28 requests are stateless and served by the SDK's
 * `createMcpHandler`, which also holds their `subscriptions/listen` streams. A thin adapter over
 * the same registry as stdio; see docs/http.md.
 */
export function serveMcpOverHttp(source: LiveRegistry, options: HttpOptions): HttpServing {
  const loopback = isLoopback(options.host);
  if (!loopback && options.tokens === undefined) {
    throw new HttpConfigError(`--host ${options.host} can be reached from other machines; that needs bearer tokens (--token-file, or the SKILL_CENTRAL_TOKEN variable)`);
  }
  for (const origin of options.allowedOrigins) {
    if (parseAllowedOrigin(origin) === undefined) throw new HttpConfigError(`--allow-origin "${origin}" is not an origin like https://app.example.com`);
  }
  const guard = new RequestGuard({ loopback, allowedHosts: options.allowedHosts, allowedOrigins: options.allowedOrigins, tokens: options.tokens });
  const warn = (message: string) => options.log(message);
  const factory = () => createServer(source, { live: options.live, ...(options.stateless && { stateless: true }) });
  const modern: McpHttpHandler = createMcpHandler(factory, {
    ...(options.stateless ? {} : { legacy: "reject" as const }),
    keepAliveMs: options.keepAliveMs,
  });
  const sessions = options.stateless
    ? undefined
    : new Sessions({ source, live: options.live, maxSessions: options.maxSessions, idleMs: options.sessionIdleMs, keepAliveMs: options.keepAliveMs, warn });
  const stopWatching = options.live
    ? watchListChanges(source, (kinds) => {
        sessions?.broadcast(kinds);
        announceModern(modern, kinds);
      })
    : () => {};

  // Requests to /mcp only: health probes stay outside every cap.
  const capacity = new Capacity();
  let stopping = false;
  let inFlight = 0;
  let drained: (() => void) | undefined;

  async function mcp(request: Request, url: URL, exchange: Exchange): Promise<Response> {
    if (request.method === "OPTIONS") return guard.preflight(request);
    const admission = guard.admit(request, url);
    if (!admission.ok) return admission.response;
    exchange.label = admission.label;
    let parsedBody: unknown;
    if (request.method === "POST") {
      const body = await readRequestBody(request, MAX_BODY_BYTES);
      if (body.tooLarge) return errorResponse(413, -32600, `Request too large: bodies are limited to ${MAX_BODY_BYTES / (1024 * 1024)} MiB`);
      try {
        parsedBody = JSON.parse(body.text);
      } catch {
        return errorResponse(400, -32700, "Parse error: the body is not JSON");
      }
      const incoming = classifyIncoming(parsedBody);
      if (incoming.kind === "message" && "method" in incoming.message) exchange.rpc = incoming.message.method;
      if (incoming.kind === "refuse") return Response.json({ jsonrpc: "2.0", id: incoming.id, error: { code: -32600, message: incoming.message } }, { status: 400 });
      if (incoming.kind === "skip") return errorResponse(400, -32600, "Invalid Request: not a JSON-RPC 2.0 message");
    }
    const sessionHeader = request.headers.get("mcp-session-id");
    if (sessionHeader !== null) exchange.session = shortSessionId(sessionHeader);
    if (sessions !== undefined && (await isLegacyRequest(request, parsedBody))) {
      return sessions.handle(request, parsedBody, admission.label, (id) => (exchange.session = shortSessionId(id)));
    }
    return modern.fetch(request, parsedBody === undefined ? {} : { parsedBody });
  }

  function probe(url: URL): Response {
    if (url.pathname === "/healthz") return Response.json({ status: stopping ? "stopping" : "ok" }, { status: stopping ? 503 : 200 });
    const readiness = source.readiness();
    if (stopping) return Response.json({ status: "stopping" }, { status: 503 });
    if (readiness.state !== "ready") return Response.json({ status: readiness.state }, { status: 503 });
    return Response.json({ status: "ready", prompts: readiness.registry.ofType("prompt").length, tools: readiness.registry.ofType("tool").length });
  }

  async function route(request: Request, url: URL | undefined, exchange: Exchange): Promise<Response> {
    if (stopping) return errorResponse(503, -32000, "The server is shutting down", { Connection: "close" });
    if (url === undefined) return errorResponse(400, -32600, "Bad Request: the Host header is missing or is not a host name");
    if (url.pathname === MCP_PATH) return withHeaders(await capacity.serve(request, () => mcp(request, url, exchange)), guard.corsHeaders(request));
    if ((url.pathname === "/healthz" || url.pathname === "/readyz") && request.method === "GET") return probe(url);
    return errorResponse(404, -32000, `Not found: the MCP endpoint is ${MCP_PATH}`);
  }

  const server = Bun.serve({
    hostname: options.host,
    port: options.port,
    // Bun closes a connection idle for two keep-alive intervals: a slow or stuck client holds
    // no socket for long. Bun counts it from the request even while a response streams (writes
    // do not reset it), so SSE responses are exempted below.
    idleTimeout: Math.min(255, Math.ceil((2 * options.keepAliveMs) / 1000) + 1),
    // Bodies are measured and refused (413) by us; Bun's own cap only stops the absurd.
    maxRequestBodySize: 4 * MAX_BODY_BYTES,
    // Production mode: an error that escapes `fetch` never gets Bun's development page (which
    // shows the working folder, a stack and source lines). It should not happen (fetch answers
    // its own errors); if it does, `error` answers a bare JSON 500 and logs one line.
    development: false,
    error(error) {
      try {
        warn(`internal error: ${logValue(error.message, MAX_LOGGED_MESSAGE_CHARS)}`);
        options.log("http - - 500");
      } catch {
        // Nothing more to tell: the answer below is what matters.
      }
      return errorResponse(500, -32603, "Internal error");
    },
    async fetch(request, bun) {
      const started = performance.now();
      const url = requestUrl(request);
      const exchange: Exchange = {};
      inFlight++;
      let response: Response;
      try {
        response = await route(request, url, exchange);
      } catch (error) {
        warn(`internal error on ${logValue(request.method)} ${loggedPath(url?.pathname ?? pathOfTarget(request.url), ROUTES)}: ${logValue(error instanceof Error ? error.message : String(error), MAX_LOGGED_MESSAGE_CHARS)}`);
        response = errorResponse(500, -32603, "Internal error");
      } finally {
        inFlight--;
        if (inFlight === 0) drained?.();
      }
      // A notification stream stays open as long as its client listens. Its keep-alive comments
      // keep proxies from closing it, and a write to a client that vanished ends it.
      if (response.body !== null && response.headers.get("content-type")?.startsWith("text/event-stream")) {
        bun.timeout(request, 0);
        response = opened(response);
      }
      // The route, never the query string or an unknown path as sent: either may hold what a
      // careless client put there (a token). Client-chosen values are quoted and capped.
      const path = loggedPath(url?.pathname ?? pathOfTarget(request.url), ROUTES);
      const fields = [logValue(request.method), path, String(response.status), `${(performance.now() - started).toFixed(1)}ms`];
      if (exchange.rpc !== undefined) fields.push(`rpc=${logValue(exchange.rpc)}`);
      if (exchange.session !== undefined) fields.push(`session=${logValue(exchange.session)}`);
      if (exchange.label !== undefined) fields.push(`token=${logValue(exchange.label)}`);
      options.log(`http ${fields.join(" ")}`);
      return response;
    },
  });

  const port = server.port ?? options.port;
  const hostInUrl = options.host.includes(":") ? `[${options.host}]` : options.host;
  let stopped: Promise<void> | undefined;
  return {
    url: `http://${hostInUrl}:${port}${MCP_PATH}`,
    port,
    stop() {
      stopped ??= (async () => {
        stopping = true;
        stopWatching();
        // No new connections; requests already being answered finish.
        void server.stop(false);
        if (inFlight > 0) {
          await Promise.race([new Promise<void>((resolve) => (drained = resolve)), Bun.sleep(DRAIN_MS)]);
        }
        // Then the long-lived streams end: sessions' GET streams and 2026-07-28 listen streams.
        await Promise.race([Promise.all([sessions?.closeAll(), modern.close()]), Bun.sleep(250)]);
        await server.stop(true);
      })();
      return stopped;
    },
  };
}

/**
 * The request's URL, or undefined when it cannot be formed: Bun builds it from the Host header,
 * and an HTTP/1.0 request may have none or one that is not a host (`a@localhost`).
 */
function requestUrl(request: Request): URL | undefined {
  try {
    return new URL(request.url);
  } catch {
    return undefined;
  }
}

/** 2026-07-28 clients hear of changes on their subscriptions/listen streams, through the handler's bus. */
function announceModern(handler: McpHttpHandler, kinds: readonly ListKind[]): void {
  for (const kind of kinds) {
    if (kind === "prompts") handler.notify.promptsChanged();
    else if (kind === "tools") handler.notify.toolsChanged();
    else handler.notify.resourcesChanged();
  }
}

const OPENING_COMMENT = new TextEncoder().encode(": stream open\n\n");

/**
 * The stream with an SSE comment first. Bun sends a streaming response's headers with its first
 * chunk, and a session's GET stream may have nothing to say for a long time: without this the
 * client waits that long for the stream to open.
 */
function opened(response: Response): Response {
  const source = response.body!.getReader();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(OPENING_COMMENT);
    },
    async pull(controller) {
      const next = await source.read();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    cancel(reason) {
      return source.cancel(reason);
    },
  });
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

function withHeaders(response: Response, headers: Record<string, string>): Response {
  if (Object.keys(headers).length === 0) return response;
  const merged = new Headers(response.headers);
  for (const [name, value] of Object.entries(headers)) merged.set(name, value);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers: merged });
}
