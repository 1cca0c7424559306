/** MCP over Streamable HTTP: the server assembled, each path behind the stages it needs, and its stop. */
import { createMcpHandler, type McpHttpHandler } from "@modelcontextprotocol/server";
import { ANONYMOUS } from "../../registry/caller.ts";
import { restrictedLayers } from "../../registry/visibility.ts";
import type { ListKind } from "../feature.ts";
import { watchListChanges } from "../list-changed.ts";
import type { Registry } from "../../registry/registry.ts";
import type { LiveRegistry } from "../registry-source.ts";
import { logValue, MAX_LOGGED_MESSAGE_CHARS } from "../log-value.ts";
import { isLoopbackHost } from "../../config/config-url.ts";
import { accessLine, accessRecord, type Exchange, loggedPath, pathOfTarget } from "./access-log.ts";
import type { Authenticators } from "./auth.ts";
import { CallerEventBus } from "./caller-bus.ts";
import { onUseBy, statelessFactory } from "./auth-info.ts";
import { MAX_BODY_BYTES, readBody } from "./body.ts";
import { Capacity } from "./capacity.ts";
import { dispatch, type Handlers } from "./dispatch.ts";
import { authenticated, contextOf, cors, guarded, type Handler, limited, preflight, staged } from "./stages.ts";
import { InFlight } from "./in-flight.ts";
import { HttpMetrics, METRICS_PATH, type ReloadOutcome } from "./metrics.ts";
import { metadataDocument, metadataPaths, PRM_PATH } from "./oauth/protected-resource.ts";
import { OAuthResourceServer } from "./oauth/resource-server.ts";
import { checkHttpOptions, type HttpOptions } from "./options.ts";
import { PROBE_PATHS, probe } from "./probes.ts";
import { RequestGuard } from "./request-guard.ts";
import { errorResponse, isEventStream, opened } from "./responses.ts";
import { Sessions, shortSessionId } from "./sessions.ts";
import { WELL_KNOWN_PATH, wellKnownRoute } from "./well-known.ts";

export const MCP_PATH = "/mcp";
/**
 * Every path the server answers; the access log shows any other path only by its shape. The
 * Protected Resource Metadata paths are named even when OAuth is off (then they are 404s).
 */
const routesFor = (resource: string | undefined): readonly string[] => [
  MCP_PATH,
  ...PROBE_PATHS,
  METRICS_PATH,
  ...new Set([PRM_PATH, `${PRM_PATH}${MCP_PATH}`, ...(resource ? metadataPaths(resource) : [])]),
];
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
  /** Counts a reload in the usage metrics (nothing without them). */
  reloaded(outcome: ReloadOutcome): void;
}

/** What the server needs per request, built once per server. */
interface Pipeline extends Handlers {
  /** Each path's handler behind the stages it needs (stages.ts), by exact path. */
  paths: ReadonlyMap<string, Handler>;
  /** Every path under `/.well-known/agent-skills/`. */
  wellKnown: Handler;
  routes: readonly string[];
  inFlight: InFlight;
  log: (line: string) => void;
  /** Usage metrics, when `/metrics` is configured. */
  metrics: HttpMetrics | undefined;
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
  // Announced to every caller, whichever layer changed: the announcement says only that a list changed.
  const stopWatching = options.live
    ? watchListChanges(source, (kinds) => {
        pipeline.sessions?.broadcast(kinds);
        announceModern(pipeline.modern, kinds);
      })
    : () => {};
  const stopWarning = unauthenticated(options) ? warnUnreachableLayers(source, options.log) : () => {};
  // 2026-07-28 listen streams' resourceSubscriptions: per caller's view (caller-bus.ts); the SDK filters by each stream's URIs.
  const stopUpdates =
    options.live && !options.stateless
      ? source.onSwap((next, previous) => pipeline.bus.announceUpdates(next, previous))
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
        stopWarning();
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
        pipeline.metrics?.close();
      })();
      return stopped;
    },
    reloaded(outcome) {
      pipeline.metrics?.reloaded(outcome);
    },
  };
}

const unauthenticated = (options: HttpOptions): boolean => options.tokens === undefined && options.oauth === undefined;

function assemble(source: LiveRegistry, options: HttpOptions): Pipeline {
  const { tokens, live, stateless, keepAliveMs } = options;
  const guard = new RequestGuard({
    loopback: isLoopbackHost(options.host),
    allowedHosts: options.allowedHosts,
    allowedOrigins: options.allowedOrigins,
    tokens,
  });
  // Read first: a metrics token file that cannot be used stops the start, before anything listens.
  const metrics: HttpMetrics | undefined =
    options.metricsTokenFile === undefined
      ? undefined
      : HttpMetrics.open({
          tokenFile: options.metricsTokenFile,
          source,
          openSessions: (): number => sessions?.size ?? 0,
          ...(options.usageDropped && { usageDropped: options.usageDropped }),
          warn: options.log,
        });
  const auth = authenticators(options);
  const usesBy = onUseBy(metrics?.used, options.onUseBy);
  const factory = statelessFactory(source, { live, ...(stateless && { stateless: true }) }, usesBy);
  const bus = new CallerEventBus();
  const modern = createMcpHandler(factory, { ...(stateless ? {} : { legacy: "reject" as const }), keepAliveMs, bus });
  const sessions = stateless
    ? undefined
    : new Sessions({
        source,
        live,
        maxSessions: options.maxSessions,
        idleMs: options.sessionIdleMs,
        keepAliveMs,
        warn: (line) => options.log(line),
        ...(usesBy && { onUseBy: usesBy }),
      });
  const handlers: Handlers = { modern, bus, sessions };
  // Each path behind the stages it needs (stages.ts), Hono-style. CORS is outermost, so every
  // refusal below it carries the headers a trusted page needs to read it.
  const paths = new Map<string, Handler>();
  const checked = [cors(guard), preflight(guard), guarded(guard)];
  const signedIn = [...checked, authenticated(auth)];
  // Only /mcp is capped (capacity.ts): the probes, the metadata and /metrics stay outside every
  // cap. The cap comes right after CORS, before any other stage does work.
  const capped = [cors(guard), limited(new Capacity()), preflight(guard), guarded(guard), authenticated(auth)];
  paths.set(MCP_PATH, staged(capped, mcpRoute(handlers)));
  // The Host and Origin checks apply to /metrics, and its own token (metrics.ts); no CORS.
  if (metrics !== undefined)
    paths.set(
      METRICS_PATH,
      staged([guarded(guard)], ({ request }) => metrics.answer(request)),
    );
  // RFC 9728 Protected Resource Metadata: public (it is how a client learns where to sign in), so
  // outside auth, but behind the Host and Origin checks.
  if (auth.oauth !== undefined) {
    const metadata = staged(checked, resourceMetadataRoute(JSON.stringify(metadataDocument(auth.oauth.options))));
    for (const path of metadataPaths(auth.oauth.options.resource)) paths.set(path, metadata);
  }
  const inFlight = new InFlight();
  for (const path of PROBE_PATHS) paths.set(path, probeRoute(path, source, inFlight));
  return {
    paths,
    wellKnown: staged(signedIn, wellKnownRoute(source, unauthenticated(options))),
    routes: routesFor(options.oauth?.resource),
    ...handlers,
    inFlight,
    log: (line) => options.log(line),
    metrics,
  };
}

/** Static tokens and, with `oauth`, the resource server (its issuer's metadata fetched now, off the request path). */
function authenticators(options: HttpOptions): Authenticators {
  const { tokens, oauth } = options;
  if (oauth === undefined) return { tokens, oauth: undefined };
  const server = new OAuthResourceServer(oauth, options.log);
  server.warm();
  return { tokens, oauth: server };
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
        if (options.accessLog) options.accessLog(accessRecord("-", "-", 500, 0, { caller: ANONYMOUS }));
        else options.log("http - - 500");
      } catch {
        // Nothing more to tell: the answer below is what matters.
      }
      return errorResponse(500, -32603, "Internal error");
    },
    async fetch(request, bun) {
      const started = performance.now();
      const url = requestUrl(request);
      const path = loggedPath(url?.pathname ?? pathOfTarget(request.url), pipeline.routes);
      const exchange: Exchange = { caller: ANONYMOUS };
      let response = await pipeline.inFlight.run(() => route(request, url, path, exchange, pipeline));
      // A notification stream stays open as long as its client listens. Its keep-alive comments
      // keep proxies from closing it, and a write to a client that vanished ends it.
      if (isEventStream(response)) {
        bun.timeout(request, 0);
        response = opened(response);
      }
      const ms = performance.now() - started;
      if (path === MCP_PATH) pipeline.metrics?.requested(exchange.rpc, response.status, ms / 1000);
      if (options.accessLog) options.accessLog(accessRecord(request.method, path, response.status, ms, exchange));
      else options.log(accessLine(request.method, path, response.status, ms, exchange));
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
    const handler =
      pipeline.paths.get(url.pathname) ?? (url.pathname.startsWith(WELL_KNOWN_PATH) ? pipeline.wellKnown : undefined);
    if (handler !== undefined) return await handler(contextOf(request, url, exchange));
    return errorResponse(404, -32000, `Not found: the MCP endpoint is ${MCP_PATH}`);
  } catch (error) {
    pipeline.log(
      `internal error on ${logValue(request.method)} ${path}: ${logValue(error instanceof Error ? error.message : String(error), MAX_LOGGED_MESSAGE_CHARS)}`,
    );
    return errorResponse(500, -32603, "Internal error");
  }
}

/** /mcp once the gate let the request through: its body, then its handler (dispatch.ts). */
const mcpRoute =
  (handlers: Handlers): Handler =>
  async ({ request, exchange, authInfo }) => {
    const body = await readBody(request);
    if (!body.ok) return body.response;
    exchange.rpc = body.rpc;
    exchange.skill = body.skill;
    return dispatch(
      request,
      body.parsedBody,
      { caller: exchange.caller, authInfo },
      handlers,
      (id) => (exchange.session = shortSessionId(id)),
    );
  };

/** The health probes: GET only, outside the gate and every cap. */
const probeRoute =
  (path: (typeof PROBE_PATHS)[number], source: LiveRegistry, inFlight: InFlight): Handler =>
  async ({ request }) =>
    request.method === "GET"
      ? probe(path, source, inFlight.stopping)
      : errorResponse(404, -32000, `Not found: the MCP endpoint is ${MCP_PATH}`);

/**
 * Without authentication every HTTP caller is anonymous, so a layer with `visibleTo` is served to
 * nobody over HTTP: said once per layer, at the first load or the reload that restricts it.
 */
function warnUnreachableLayers(source: LiveRegistry, log: (line: string) => void): () => void {
  const warned = new Set<string>();
  const check = (registry: Registry) => {
    for (const layer of restrictedLayers(registry)) {
      if (warned.has(layer.name)) continue;
      warned.add(layer.name);
      log(
        `warning: layer "${layer.name}" has visibleTo but the server has no authentication: nobody over HTTP sees it`,
      );
    }
  };
  let stopped = false;
  source.current().then(
    (registry) => stopped || check(registry),
    () => {},
  );
  const unsubscribe = source.onSwap((next) => check(next));
  return () => {
    stopped = true;
    unsubscribe();
  };
}

/** The RFC 9728 Protected Resource Metadata document, behind the guard (see `assemble`). */
const resourceMetadataRoute =
  (body: string): Handler =>
  async ({ request }) => {
    if (request.method !== "GET" && request.method !== "HEAD")
      return errorResponse(405, -32000, "Method not allowed: GET the metadata", { Allow: "GET, HEAD" });
    return new Response(request.method === "HEAD" ? null : body, {
      headers: { "Content-Type": "application/json", "Cache-Control": "public, max-age=300" },
    });
  };

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
