/**
 * What the access log may show of a request. Every value in a log line that a client chose (the
 * JSON-RPC method, a session id, the path) goes through here: a client must not be able to forge
 * a line, hide one, or fill the log, and a secret it put in the URL must not reach the log.
 */
import { type Caller, callerName } from "../../registry/caller.ts";
import { logValue, MAX_LOGGED_CHARS } from "../log-value.ts";

/** Path segments shown of an unknown path; more become one `…`. */
export const MAX_LOGGED_SEGMENTS = 8;

/**
 * The path as the log shows it: a route of the server as it is; any other path only by its
 * shape, each segment that is not a route's name shown as `*`. A client that puts a token in the
 * URL (`/mcp/<token>`, `/<token>`) gets a 404, and its token stays out of the log.
 */
export function loggedPath(pathname: string, routes: readonly string[]): string {
  if (routes.includes(pathname)) return pathname;
  const names = new Set(routes.flatMap((route) => route.split("/")).filter((name) => name !== ""));
  const segments = pathname.split("/").slice(1);
  const shown = segments
    .slice(0, MAX_LOGGED_SEGMENTS)
    .map((segment) => (segment === "" || names.has(segment) ? segment : "*"));
  return `/${shown.join("/")}${segments.length > MAX_LOGGED_SEGMENTS ? "/…" : ""}`;
}

/**
 * The path of a request whose URL cannot be formed (no usable Host). Bun gives the target as
 * sent (`/mcp`) when there is no Host, or glued to the Host (`http://[::1/mcp`); the path is
 * what follows the first `/` after the scheme, or `/` when nothing sensible does.
 */
export function pathOfTarget(target: string): string {
  const path = target.startsWith("/") ? target : /^[a-z]+:\/\/[^/]*(\/.*)?$/i.exec(target)?.[1];
  if (path === undefined) return "/";
  try {
    return new URL(path, "http://localhost").pathname;
  } catch {
    return "/";
  }
}

/** What the access log shows of one request besides its method, path, status and time; filled as the stages learn it. */
export interface Exchange {
  /** The JSON-RPC method, from the body stage. */
  rpc?: string;
  /** The session, short (`shortSessionId`), from the dispatch stage. */
  session?: string;
  /**
   * Who asked: anonymous until the auth stage finds out. The log names them by `callerName` (a
   * static token's label, an OAuth caller's claim); the text line says which (`token=`, `caller=`).
   */
  caller: Caller;
  /** The skill id the request named (`prompts/get`, `tools/call`, `skills/get`, a catalog tool's `name`), from the body stage. */
  skill?: string;
}

/** One request as a JSON log line (`--log-format json`): every key always there, `null` when unknown. */
export interface AccessRecord {
  /** ISO-8601, UTC. */
  time: string;
  /** The HTTP method. */
  method: string;
  /** As `loggedPath` shows it. */
  route: string;
  status: number;
  /** Milliseconds, to a tenth. */
  ms: number;
  /** The JSON-RPC method. */
  rpc: string | null;
  session: string | null;
  caller: string | null;
  skill: string | null;
}

/**
 * A client's value as a JSON log field: JSON escapes make it one field whatever it holds, so
 * only its length is bounded here (`…(N chars)` after the first `MAX_LOGGED_CHARS`).
 */
function capped(value: string | undefined): string | null {
  if (value === undefined) return null;
  return value.length <= MAX_LOGGED_CHARS ? value : `${value.slice(0, MAX_LOGGED_CHARS)}…(${value.length} chars)`;
}

/** The JSON log's record of one request: what `accessLine` shows, plus the caller and the skill named. */
export function accessRecord(
  method: string,
  path: string,
  status: number,
  ms: number,
  exchange: Exchange,
  time: Date = new Date(),
): AccessRecord {
  return {
    time: time.toISOString(),
    method: capped(method) ?? "",
    route: path,
    status,
    ms: Math.round(ms * 10) / 10,
    rpc: capped(exchange.rpc),
    session: capped(exchange.session),
    caller: capped(callerName(exchange.caller)),
    skill: capped(exchange.skill),
  };
}

/**
 * The last stage of every request: its access-log line. `path` comes from `loggedPath` (the
 * route, never the query string or an unknown path as sent: either may hold what a careless
 * client put there, a token). Client-chosen values are quoted and capped.
 */
export function accessLine(method: string, path: string, status: number, ms: number, exchange: Exchange): string {
  const fields = [logValue(method), path, String(status), `${ms.toFixed(1)}ms`];
  if (exchange.rpc !== undefined) fields.push(`rpc=${logValue(exchange.rpc)}`);
  if (exchange.session !== undefined) fields.push(`session=${logValue(exchange.session)}`);
  const caller = callerName(exchange.caller);
  if (caller !== undefined) fields.push(`${exchange.caller.kind === "token" ? "token" : "caller"}=${logValue(caller)}`);
  return `http ${fields.join(" ")}`;
}
