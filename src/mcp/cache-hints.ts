/**
 * How long a 2026-07-28 client may serve a result from its cache (`ttlMs`), and whether it may
 * share it between users (`cacheScope`). Most results are the same for every caller (tokens
 * only gate access), so they are `public`; the tool list and the instructions (in
 * `server/discover`) depend on the client (catalog tools for tool-only and capped clients), so
 * a shared cache must not hand one client's answer to another: they are `private`. What a reload can change (the lists, `resources/read`)
 * is never promised fresh while the skills are watched: a client learns of a change from its
 * `subscriptions/listen` stream, which also evicts its cache. What only a restart can change
 * (the capabilities, the resource template, and everything under `--no-watch`) is promised
 * for five minutes, which bounds how long a restart or a rolling deploy goes unnoticed. When a
 * layer declares `visibleTo`, every result depends on who asks: all of them are `private`.
 */
import type { ServerOptions } from "@modelcontextprotocol/server";
import type { FeatureOptions } from "./feature.ts";

type CacheHints = NonNullable<ServerOptions["cacheHints"]>;

export const PROCESS_LIFETIME_TTL_MS = 5 * 60_000;

export function cacheHints({ live, perCaller }: FeatureOptions): CacheHints {
  const cacheScope = perCaller ? "private" : "public";
  const reloadable = { ttlMs: live ? 0 : PROCESS_LIFETIME_TTL_MS, cacheScope } as const;
  const fixed = { ttlMs: PROCESS_LIFETIME_TTL_MS, cacheScope } as const;
  return {
    "prompts/list": reloadable,
    "tools/list": { ...reloadable, cacheScope: "private" },
    "resources/list": reloadable,
    "resources/read": reloadable,
    "resources/templates/list": fixed,
    "server/discover": { ...fixed, cacheScope: "private" },
  };
}
