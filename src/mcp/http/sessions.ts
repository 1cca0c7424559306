/** The 2025-11-25 side of /mcp: one SDK transport and server per session, opened by `initialize`, bounded and ended when idle. */
import {
  isInitializeRequest,
  WebStandardStreamableHTTPServerTransport,
  type Server,
} from "@modelcontextprotocol/server";
import { sourceFor } from "../caller-source.ts";
import type { ListKind } from "../feature.ts";
import { sendListChanged } from "../list-changed.ts";
import type { RegistrySource } from "../registry-source.ts";
import { mayBeAsked } from "../ask-missing.ts";
import { createServer } from "../server.ts";
import { logValue, MAX_LOGGED_MESSAGE_CHARS } from "../log-value.ts";
import { type Caller, principalOf } from "../../registry/caller.ts";
import type { OnUseBy } from "./auth-info.ts";
import { errorResponse } from "./responses.ts";

export interface SessionOptions {
  source: RegistrySource;
  /** Skills are watched: declare listChanged and announce changes on each session's stream. */
  live: boolean;
  /** Open sessions at most; an `initialize` beyond it gets 503 (sessions are never evicted early: a token holder could evict everyone). */
  maxSessions: number;
  /** A session with no request and no open stream for this long is closed. */
  idleMs: number;
  /** SSE comment frames this often keep a quiet notification stream open through proxies and Bun's idle timeout. */
  keepAliveMs: number;
  warn: (message: string) => void;
  /** Each session's server's `onUse`, for the caller that opened it (usage metrics and history). */
  onUseBy?: OnUseBy;
}

interface Session {
  readonly id: string;
  readonly server: Server;
  readonly transport: WebStandardStreamableHTTPServerTransport;
  /** Who opened it (a token's label, an OAuth subject): a session id is only good for the same principal. */
  readonly principal: string | undefined;
  initialized: boolean;
  /** Requests being answered, and notification streams open: a busy session is never idle. */
  busy: number;
  streams: number;
  lastActive: number;
}

/** The short form of a session id the access log shows: enough to follow a client, not to take over its session. */
export const shortSessionId = (id: string): string => id.slice(0, 8);

const notFound = () =>
  errorResponse(404, -32001, "Session not found: it ended or expired; start a new one with initialize");

/**
 * The 2025-11-25 side of the endpoint: one SDK transport and one server per session, opened by
 * `initialize` (the response carries `Mcp-Session-Id`), ended by DELETE, by the idle timeout or
 * by shutdown. Each session's GET stream carries list_changed after a reload.
 */
export class Sessions {
  private readonly open = new Map<string, Session>();
  private readonly sweeper: ReturnType<typeof setInterval>;

  constructor(private readonly options: SessionOptions) {
    this.sweeper = setInterval(() => this.closeIdle(), Math.max(250, Math.min(options.idleMs / 4, 30_000)));
    this.sweeper.unref?.();
  }

  get size(): number {
    return this.open.size;
  }

  /**
   * Serves one request of the session its `Mcp-Session-Id` names, or opens one with `initialize`.
   * A session serves the registry as the caller that opened it sees it, for its whole life.
   */
  async handle(
    request: Request,
    parsedBody: unknown,
    caller: Caller,
    onSession: (id: string) => void,
  ): Promise<Response> {
    const id = request.headers.get("mcp-session-id");
    if (id !== null) {
      const session = this.open.get(id);
      if (session === undefined || session.principal !== principalOf(caller)) return notFound();
      onSession(id);
      return this.serve(session, request, parsedBody);
    }
    if (request.method !== "POST" || !isInitializeRequest(parsedBody)) {
      return errorResponse(
        400,
        -32000,
        "Bad Request: an Mcp-Session-Id header is required; send initialize first to open a session",
      );
    }
    if (this.open.size >= this.options.maxSessions) this.closeIdle();
    if (this.open.size >= this.options.maxSessions) {
      return errorResponse(503, -32000, `Too many open sessions (${this.open.size}): try again later`, {
        "Retry-After": "5",
      });
    }
    return this.start(request, parsedBody, caller, onSession);
  }

  private async start(
    request: Request,
    parsedBody: unknown,
    caller: Caller,
    onSession: (id: string) => void,
  ): Promise<Response> {
    // 2025-11-25 results carry no cache hints: whether they differ by caller does not matter here.
    const { source, live } = this.options;
    const onUse = this.options.onUseBy?.(caller);
    const server = createServer(sourceFor(source, caller), { live, ...(onUse && { onUse }) });
    let session: Session | undefined;
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      // Answers are plain JSON: a request is over when its response is, which is what
      // shutdown waits for. Notifications travel on the session's GET stream. A client that
      // may be asked for missing arguments gets SSE answers: the question travels on the
      // stream of the request it belongs to (in JSON mode the SDK drops it).
      enableJsonResponse: !mayBeAsked(this.options.source, parsedBody),
      keepAliveMs: this.options.keepAliveMs,
      onsessioninitialized: (id) => {
        session = {
          id,
          server,
          transport,
          principal: principalOf(caller),
          initialized: false,
          busy: 0,
          streams: 0,
          lastActive: performance.now(),
        };
        this.open.set(id, session);
        onSession(id);
      },
      onsessionclosed: (id) => void this.close(id),
    });
    server.oninitialized = () => {
      if (session) session.initialized = true;
    };
    // The SDK's messages may quote a client's headers or body: quoted and capped like the access log.
    server.onerror = (error) => this.options.warn(`session: ${logValue(error.message, MAX_LOGGED_MESSAGE_CHARS)}`);
    transport.onclose = () => {
      if (session) void this.close(session.id);
    };
    await server.connect(transport);
    const response = await transport.handleRequest(request, { parsedBody });
    // An initialize that failed opened nothing: release its server.
    if (session === undefined) await server.close().catch(() => {});
    return response;
  }

  private async serve(session: Session, request: Request, parsedBody: unknown): Promise<Response> {
    session.busy++;
    session.lastActive = performance.now();
    let response: Response;
    try {
      response = await session.transport.handleRequest(request, { parsedBody });
    } finally {
      session.busy--;
      session.lastActive = performance.now();
    }
    if (
      request.method !== "GET" ||
      response.body === null ||
      !response.headers.get("content-type")?.startsWith("text/event-stream")
    )
      return response;
    return this.tracked(session, response);
  }

  /** The GET notification stream, counted while open so an idle sweep never closes a listening session. */
  private tracked(session: Session, response: Response): Response {
    session.streams++;
    const reader = response.body!.getReader();
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      session.streams--;
      session.lastActive = performance.now();
    };
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) {
            end();
            controller.close();
          } else controller.enqueue(value);
        } catch (error) {
          end();
          controller.error(error);
        }
      },
      cancel(reason) {
        end();
        return reader.cancel(reason);
      },
    });
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  }

  /** Announces changed lists on every initialized session. */
  broadcast(kinds: readonly ListKind[]): void {
    for (const session of this.open.values()) {
      if (!session.initialized) continue;
      sendListChanged(session.server, kinds).catch((error: unknown) =>
        this.options.warn(`could not send list_changed to a session: ${String(error)}`),
      );
    }
  }

  /** Closes sessions that had no request and no open stream for the idle timeout. */
  private closeIdle(): void {
    const now = performance.now();
    for (const session of this.open.values()) {
      if (session.busy === 0 && session.streams === 0 && now - session.lastActive >= this.options.idleMs)
        void this.close(session.id);
    }
  }

  private async close(id: string): Promise<void> {
    const session = this.open.get(id);
    if (session === undefined) return;
    this.open.delete(id);
    await session.transport.close().catch(() => {});
    await session.server.close().catch(() => {});
  }

  /** Ends every session and its streams (shutdown). */
  async closeAll(): Promise<void> {
    clearInterval(this.sweeper);
    await Promise.all([...this.open.keys()].map((id) => this.close(id)));
  }
}
