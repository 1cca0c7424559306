import { createMcpHandler, type McpHttpHandler } from "@modelcontextprotocol/server";
import type { ListKind } from "../feature.ts";
import { watchListChanges } from "../list-changed.ts";
import { watchResourceUpdates } from "../resource-subscriptions.ts";
import type { LiveRegistry } from "../registry-source.ts";
import { createServer } from "../server.ts";
import { logValue, MAX_LOGGED_MESSAGE_CHARS } from "../log-value.ts";
import { accessLine, type Exchange, loggedPath, pathOfTarget } from "./access-log.ts";
import { authenticate } from "./auth.ts";
import type { BearerTokens } from "./bearer-tokens.ts";
import { MAX_BODY_BYTES, readBody } from "./body.ts";
import { Capacity } from "./capacity.ts";
import { dispatch, type Handlers } from "./dispatch.ts";
import { InFlight } from "./in-flight.ts";
import { checkHttpOptions, type HttpOptions, isLoopback } from "./options.ts";
import { PROBE_PATHS, probe } from "./probes.ts";
import { RequestGuard } from "./request-guard.ts";
import { errorResponse, isEventStream, opened, withHeaders } from "./responses.ts";
import { Sessions, shortSessionId } from "./sessions.ts";

export const MCP_PATH = "/mcp";
/** Every path the server answers; the access log shows any other path only by its shape. */
const ROUTES = [MCP_PATH, ...PROBE_PATHS] as const;
/** Once requests in flight are done (or their drain deadline passed), streams get this long to end before connections are cut. */
export const STREAMS_CLOSE_MS = 250;

export interface HttpServing {
  /** The MCP endpoint, e.g. http://127.0.0.1:8740/mcp. */
  url: string;
  port: number;
  /**
   * Stops accepting, lets requests in flight finish for up to `drainMs` (the process's drain
   * deadline, src/serve/drain.ts; 0: none is waited for), then ends every stream and connection.
   */
  stop(drainMs?: number): Promise<void>;
}

/** What the stages of a request need, built once per server. */
interface Pipeline extends Handlers {
  source: LiveRegistry;
  guard: RequestGuard;
  tokens: BearerTokens | undefined;
  capacity: Capacity;
  inFlight: InFlight;
  log: (line: string) => void;
}

/**
 * MCP over Streamable HTTP on one port, both eras: 2025-11-25 clients get sessions (or, with
 * `stateless`, per-request serving); 2026-07-28 requests are stateless and served by the SDK's
 * `createMcpHandler`, which also holds their `subscriptions/listen` streams. A thin adapter over
 * the same registry as stdio; see docs/http.md.
 */
export function serveMcpOverHttp(source: LiveRegistry, options: HttpOptions): HttpServing {
  checkHttpOptions(options);
  const pipeline = assemble(source, options);
  const stopWatching = options.live
    ? watchListChanges(source, (kinds) => {
        pipeline.sessions?.broadcast(kinds);
        announceModern(pipeline.modern, kinds);
      })
    : () => {};
  // 2026-07-28 listen streams' resourceSubscriptions (the handler's bus filters by each stream's URIs).
  const stopUpdates =
    options.live && !options.stateless
      ? watchResourceUpdates(source, (uris) => {
          for (const uri of uris) pipeline.modern.notify.resourceUpdated(uri);
        })
      : () => {};
  const server = listen(options, pipeline);
  const port = server.port ?? options.port;
  const hostInUrl = options.host.includes(":") ? `[${options.host}]` : options.host;
  let stopped: Promise<void> | undefined;
  return {
    url: `http://${hostInUrl}:${port}${MCP_PATH}`,
    port,
    stop(drainMs = 0) {
      stopped ??= (async () => {
        pipeline.inFlight.stopping = true;
        stopWatching();
        stopUpdates();
        // No new connections; requests already being answered finish.
        void server.stop(false);
        await pipeline.inFlight.settled(drainMs);
        // Then the long-lived streams end: sessions' GET streams and 2026-07-28 listen streams.
        await Promise.race([
          Promise.all([pipeline.sessions?.closeAll(), pipeline.modern.close()]),
          Bun.sleep(STREAMS_CLOSE_MS),
        ]);
        await server.stop(true);
      })();
      return stopped;
    },
  };
}

function assemble(source: LiveRegistry, options: HttpOptions): Pipeline {
  const { tokens, live, stateless, keepAliveMs } = options;
  const guard = new RequestGuard({
    loopback: isLoopback(options.host),
    allowedHosts: options.allowedHosts,
    allowedOrigins: options.allowedOrigins,
    tokens,
  });
  const factory = () => createServer(source, { live, ...(stateless && { stateless: true }) });
  const modern = createMcpHandler(factory, { ...(stateless ? {} : { legacy: "reject" as const }), keepAliveMs });
  const sessions = stateless
    ? undefined
    : new Sessions({
        source,
        live,
        maxSessions: options.maxSessions,
        idleMs: options.sessionIdleMs,
        keepAliveMs,
        warn: (line) => options.log(line),
      });
  // Requests to /mcp only: health probes stay outside every cap.
  return {
    source,
    guard,
    tokens,
    modern,
    sessions,
    capacity: new Capacity(),
    inFlight: new InFlight(),
    log: (line) => options.log(line),
  };
}

function listen(options: HttpOptions, pipeline: Pipeline): Bun.Server<undefined> {
  return Bun.serve({
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
        options.log(`internal error: ${logValue(error.message, MAX_LOGGED_MESSAGE_CHARS)}`);
        options.log("http - - 500");
      } catch {
        // Nothing more to tell: the answer below is what matters.
      }
      return errorResponse(500, -32603, "Internal error");
    },
    async fetch(request, bun) {
      const started = performance.now();
      const url = requestUrl(request);
      const path = loggedPath(url?.pathname ?? pathOfTarget(request.url), ROUTES);
      const exchange: Exchange = {};
      let response = await pipeline.inFlight.run(() => route(request, url, path, exchange, pipeline));
      // A notification stream stays open as long as its client listens. Its keep-alive comments
      // keep proxies from closing it, and a write to a client that vanished ends it.
      if (isEventStream(response)) {
        bun.timeout(request, 0);
        response = opened(response);
      }
      options.log(accessLine(request.method, path, response.status, performance.now() - started, exchange));
      return response;
    },
  });
}

/** Which handler answers a request, by path; an error anywhere below is one 500 and one warning. */
async function route(
  request: Request,
  url: URL | undefined,
  path: string,
  exchange: Exchange,
  pipeline: Pipeline,
): Promise<Response> {
  try {
    if (pipeline.inFlight.stopping)
      return errorResponse(503, -32000, "The server is shutting down", { Connection: "close" });
    if (url === undefined)
      return errorResponse(400, -32600, "Bad Request: the Host header is missing or is not a host name");
    if (url.pathname === MCP_PATH) {
      const response = await pipeline.capacity.serve(request, () => answerMcp(request, url, exchange, pipeline));
      return withHeaders(response, pipeline.guard.corsHeaders(request));
    }
    const probePath = PROBE_PATHS.find((p) => p === url.pathname);
    if (probePath !== undefined && request.method === "GET")
      return probe(probePath, pipeline.source, pipeline.inFlight.stopping);
    return errorResponse(404, -32000, `Not found: the MCP endpoint is ${MCP_PATH}`);
  } catch (error) {
    pipeline.log(
      `internal error on ${logValue(request.method)} ${path}: ${logValue(error instanceof Error ? error.message : String(error), MAX_LOGGED_MESSAGE_CHARS)}`,
    );
    return errorResponse(500, -32603, "Internal error");
  }
}

/** A request to /mcp through its stages, each of which may answer it: guard → auth → body → dispatch. */
async function answerMcp(request: Request, url: URL, exchange: Exchange, pipeline: Pipeline): Promise<Response> {
  if (request.method === "OPTIONS") return pipeline.guard.preflight(request);
  const refusal = pipeline.guard.admit(request, url);
  if (refusal !== undefined) return refusal;
  const auth = authenticate(pipeline.tokens, request, () => pipeline.guard.corsHeaders(request));
  if (!auth.ok) return auth.response;
  exchange.label = auth.label;
  const body = await readBody(request);
  if (!body.ok) return body.response;
  exchange.rpc = body.rpc;
  return dispatch(request, body.parsedBody, auth.label, pipeline, (id) => (exchange.session = shortSessionId(id)));
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
