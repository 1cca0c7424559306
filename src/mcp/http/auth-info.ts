/**
 * How the caller the auth stage found travels with a request to /mcp: to a 2025-11-25 session,
 * which is bound to its `principalOf` (registry/caller.ts), and through the SDK's handler, whose
 * only pass-through to the server factory is the request's `AuthInfo` (the SDK's contract: what a validated token
 * says, the token included); the caller rides in its `extra`.
 */
import type { AuthInfo, McpRequestContext } from "@modelcontextprotocol/server";
import { ANONYMOUS, type Caller } from "../../registry/caller.ts";
import { sourceFor } from "../caller-source.ts";
import type { FeatureOptions, OnSkillUse } from "../feature.ts";
import type { RegistrySource } from "../registry-source.ts";
import { createServer } from "../server.ts";
import { hasRestrictedLayers } from "../../registry/visibility.ts";

const CALLER_KEY = "skill-central/caller";

/** The token's `AuthInfo` with the caller it authenticated in `extra`. */
export function authInfoFor(caller: Caller, token: Omit<AuthInfo, "extra">): AuthInfo {
  return { ...token, extra: { [CALLER_KEY]: caller } };
}

/** The caller `authInfoFor` carried; a request that arrives without one is anonymous. */
export function callerOf(authInfo: AuthInfo | undefined): Caller {
  const caller = authInfo?.extra?.[CALLER_KEY];
  return typeof caller === "object" && caller !== null && "kind" in caller ? (caller as Caller) : ANONYMOUS;
}

/** The `onUse` hook of a server that serves `caller` (one per session, or per stateless request). */
export type OnUseBy = (caller: Caller) => OnSkillUse | undefined;

/**
 * Each server's hook: `shared` hears every caller's uses (the usage metrics count no caller),
 * `byCaller` the ones of the caller it serves (the usage history records who). Undefined when
 * neither is there: then no server pays for a hook.
 */
export function onUseBy(shared: OnSkillUse | undefined, byCaller: OnUseBy | undefined): OnUseBy | undefined {
  if (byCaller === undefined) return shared && (() => shared);
  return (caller) => {
    const own = byCaller(caller);
    if (own === undefined || shared === undefined) return own ?? shared;
    return (use) => {
      shared(use);
      own(use);
    };
  };
}

/**
 * The factory of the SDK's stateless handler (2026-07-28 requests, and every request under
 * `--stateless`): a server over the registry as the request's caller sees it. It waits for the
 * first load, which every request but `server/discover` and `ping` waits for anyway, to know
 * whether results must be marked `private`.
 */
export function statelessFactory(
  source: RegistrySource,
  options: Omit<FeatureOptions, "onUse" | "perCaller">,
  usesBy: OnUseBy | undefined,
): (ctx: McpRequestContext) => Promise<ReturnType<typeof createServer>> {
  return async (ctx) => {
    const registry = source.loaded() ?? (await source.current().catch(() => undefined));
    const perCaller = registry !== undefined && hasRestrictedLayers(registry);
    const caller = callerOf(ctx.authInfo);
    const onUse = usesBy?.(caller);
    return createServer(sourceFor(source, caller), {
      ...options,
      ...(perCaller && { perCaller }),
      ...(onUse && { onUse }),
    });
  };
}
