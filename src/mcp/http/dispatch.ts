/** The last stage of /mcp: a 2025-11-25 request to its session, anything else to the SDK's stateless handler. */
import { type AuthInfo, isLegacyRequest, type McpHttpHandler } from "@modelcontextprotocol/server";
import type { Caller } from "../../registry/caller.ts";
import type { CallerEventBus } from "./caller-bus.ts";
import type { Sessions } from "./sessions.ts";

/** The two MCP handlers behind /mcp: 2025-11-25 sessions (none when stateless) and the SDK's handler for the rest. */
export interface Handlers {
  sessions: Sessions | undefined;
  modern: McpHttpHandler;
  /** The modern handler's bus: a listen stream a request opens is its caller's. */
  bus: CallerEventBus;
}

/**
 * The last stage of a request to /mcp, once it is admitted, authenticated and its body read: a
 * 2025-11-25 request goes to its session (or opens one), anything else to the SDK's stateless
 * handler with the request's `authInfo` (auth-info.ts). Either serves the registry as `caller` sees
 * it; a session stays bound to the principal that opened it. `onSession` hears the session id
 * the request names, then the one it opened.
 */
export async function dispatch(
  request: Request,
  parsedBody: unknown,
  who: { caller: Caller; authInfo: AuthInfo | undefined },
  handlers: Handlers,
  onSession: (id: string) => void,
): Promise<Response> {
  const named = request.headers.get("mcp-session-id");
  if (named !== null) onSession(named);
  if (handlers.sessions !== undefined && (await isLegacyRequest(request, parsedBody))) {
    return handlers.sessions.handle(request, parsedBody, who.caller, onSession);
  }
  const { authInfo } = who;
  return handlers.bus.as(who.caller, () =>
    handlers.modern.fetch(request, {
      ...(parsedBody !== undefined && { parsedBody }),
      ...(authInfo !== undefined && { authInfo }),
    }),
  );
}
