/**
 * The HTTP gate, as stages attached per path the way Hono's middleware is (and as the board's
 * server attaches its guard to each of Bun's routes): a path's handler is wrapped once, at start,
 * in the stages it needs (guard → auth for /mcp and the well-known index; the guard alone for the
 * metadata and /metrics), so no handler spells the gate out again. Each stage may answer the
 * request itself; the CORS headers of a trusted origin are added by one stage, to refusals and
 * answers alike.
 */
import type { AuthInfo } from "@modelcontextprotocol/server";
import type { Exchange } from "./access-log.ts";
import { authenticate, type Authenticators } from "./auth.ts";
import type { Capacity } from "./capacity.ts";
import type { RequestGuard } from "./request-guard.ts";
import { withHeaders } from "./responses.ts";

/** One request on its way through the stages. */
export interface RequestContext {
  readonly request: Request;
  readonly url: URL;
  /** What the access log and the metrics learn of the request, stage by stage; who is asking among it (`exchange.caller`). */
  readonly exchange: Exchange;
  /** The SDK's `AuthInfo` of the token the auth stage accepted (auth-info.ts). */
  authInfo: AuthInfo | undefined;
}

export type Handler = (ctx: RequestContext) => Promise<Response>;
export type Stage = (next: Handler) => Handler;

/** A context before any stage ran. */
export function contextOf(request: Request, url: URL, exchange: Exchange): RequestContext {
  return { request, url, exchange, authInfo: undefined };
}

/** `handler` behind `stages`, the first stage outermost. */
export function staged(stages: readonly Stage[], handler: Handler): Handler {
  return stages.reduceRight((next, stage) => stage(next), handler);
}

/** The CORS headers of a trusted origin on whatever the path answers (refusals included): added here, nowhere else. */
export const cors =
  (guard: RequestGuard): Stage =>
  (next) =>
  async (ctx) =>
    withHeaders(await next(ctx), guard.corsHeaders(ctx.request));

/** An OPTIONS request is a CORS preflight, answered before any other check. */
export const preflight =
  (guard: RequestGuard): Stage =>
  (next) =>
  async (ctx) =>
    ctx.request.method === "OPTIONS" ? guard.preflight(ctx.request) : next(ctx);

/** The guard (request-guard.ts): no credentials in the URL, a Host this server answers to, a trusted Origin. */
export const guarded =
  (guard: RequestGuard): Stage =>
  (next) =>
  async (ctx) =>
    guard.admit(ctx.request, ctx.url) ?? next(ctx);

/** The auth stage (auth.ts): who is asking, for the handler and the access log alike. */
export const authenticated =
  (auth: Authenticators): Stage =>
  (next) =>
  async (ctx) => {
    const result = await authenticate(auth, ctx.request);
    if (!result.ok) return result.response;
    ctx.exchange.caller = result.caller;
    ctx.authInfo = result.authInfo;
    return next(ctx);
  };

/** The caps on what slow or greedy clients can make the server hold (capacity.ts). */
export const limited =
  (capacity: Capacity): Stage =>
  (next) =>
  (ctx) =>
    capacity.serve(ctx.request, () => next(ctx));
