import type { AuthInfo, McpRequestContext } from "@modelcontextprotocol/server";
import type { Caller } from "../../registry/caller.ts";
import { sourceFor } from "../caller-source.ts";
import type { FeatureOptions } from "../feature.ts";
import type { RegistrySource } from "../registry-source.ts";
import { createServer } from "../server.ts";
import { hasRestrictedLayers } from "../../registry/visibility.ts";

/**
 * Who a request to /mcp comes from, once authenticated: the `caller` decides which layers it sees
 * (src/registry/visibility.ts); the `principal` is what a 2025-11-25 session is bound to (a
 * session id is only good for the principal that opened it). Without authentication the caller
 * is `{}`: no label, no claims, so a layer with `visibleTo` is hidden from it.
 */
export interface Identity {
  readonly caller: Caller;
  readonly principal: string | undefined;
}

/** A request with no authentication configured. */
export const ANONYMOUS: Identity = { caller: {}, principal: undefined };

const CALLER_KEY = "skill-central/caller";

/**
 * The `authInfo` the SDK's handler passes through to our server factory: the caller, and never
 * the token (nothing below the auth stage needs it, and nothing may log it).
 */
export function authInfoFor(caller: Caller): AuthInfo {
  return { token: "", clientId: caller.label ?? "", scopes: [], extra: { [CALLER_KEY]: caller } };
}

/** The caller `authInfoFor` carried; a request that arrives without one is nobody in particular (`{}`). */
export function callerOf(authInfo: AuthInfo | undefined): Caller {
  const caller = authInfo?.extra?.[CALLER_KEY];
  return typeof caller === "object" && caller !== null ? (caller as Caller) : {};
}

/**
 * The factory of the SDK's stateless handler (2026-07-28 requests, and every request under
 * `--stateless`): a server over the registry as the request's caller sees it. It waits for the
 * first load, which every request but `server/discover` and `ping` waits for anyway, to know
 * whether results must be marked `private`.
 */
export function statelessFactory(
  source: RegistrySource,
  options: FeatureOptions,
): (ctx: McpRequestContext) => Promise<ReturnType<typeof createServer>> {
  return async (ctx) => {
    const registry = source.loaded() ?? (await source.current().catch(() => undefined));
    const perCaller = registry !== undefined && hasRestrictedLayers(registry);
    return createServer(sourceFor(source, callerOf(ctx.authInfo)), { ...options, ...(perCaller && { perCaller }) });
  };
}
