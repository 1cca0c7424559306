/** The HTTP server's options and their defaults (port, host, sessions, keep-alive), and the error for ones it cannot use. */
import { isLoopbackHost } from "../../config/config-url.ts";
import type { AccessRecord } from "./access-log.ts";
import type { BearerTokens } from "./bearer-tokens.ts";
import type { OnUseBy } from "./auth-info.ts";
import type { OAuthOptions } from "./oauth/token-checker.ts";
import { parseAllowedOrigin } from "./request-guard.ts";

export const DEFAULT_PORT = 8740;
export const DEFAULT_HOST = "127.0.0.1";
export const DEFAULT_MAX_SESSIONS = 1000;
export const DEFAULT_SESSION_IDLE_MS = 30 * 60_000;
export const DEFAULT_KEEPALIVE_MS = 15_000;

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
  /**
   * OAuth access tokens besides the static ones (`http.oauth`): this server is then an OAuth
   * resource server, for the public URL in `oauth.resource`.
   */
  oauth?: OAuthOptions;
  /** One line per request (the access log) and anything else worth telling the operator. */
  log: (line: string) => void;
  /** The access log as records (`--log-format json`); without it, each request is one text line through `log`. */
  accessLog?: (record: AccessRecord) => void;
  /**
   * The file holding the one token `GET /metrics` takes (config `http.metrics.tokenFile`); without
   * it there are no metrics (`/metrics` is a 404, and prom-client is never loaded).
   */
  metricsTokenFile?: string;
  /** Hears each use of a skill with the caller it served (the usage history, docs/usage.md); the metrics' count is added to it. */
  onUseBy?: OnUseBy;
  /** Uses the usage history dropped so far (`skill_central_usage_dropped_total` on /metrics). */
  usageDropped?: () => number;
}

export class HttpConfigError extends Error {
  override readonly name = "HttpConfigError";
}

/** Throws `HttpConfigError` for options the server must not start with (an address only this machine can reach needs no tokens). */
export function checkHttpOptions(options: HttpOptions): void {
  if (!isLoopbackHost(options.host) && options.tokens === undefined && options.oauth === undefined) {
    throw new HttpConfigError(
      `--host ${options.host} can be reached from other machines; that needs bearer tokens (--token-file, or the SKILL_CENTRAL_TOKEN variable) or sign-in (http.oauth, docs/sign-in.md)`,
    );
  }
  for (const origin of options.allowedOrigins) {
    if (parseAllowedOrigin(origin) === undefined)
      throw new HttpConfigError(`--allow-origin "${origin}" is not an origin like https://app.example.com`);
  }
}
