/** The HTTP server's process: its start-up, and a shutdown with a longer drain than stdio's, within two seconds in all. */
import { governedConfig } from "../config/governed-config.ts";
import { resolveHttpSettings } from "../config/resolve-config.ts";
import type { OAuthOptions } from "../mcp/http/oauth/token-checker.ts";
import { TokenConfigError, loadBearerTokens, type BearerTokens } from "../mcp/http/bearer-tokens.ts";
import { serveMcpOverHttp, STREAMS_CLOSE_MS, type HttpServing } from "../mcp/http/index.ts";
import { HttpConfigError, type HttpOptions } from "../mcp/http/options.ts";
import { LiveRegistry } from "../mcp/registry-source.ts";
import { callerName } from "../registry/caller.ts";
import { DRAIN_DEADLINE_MS, onStopSignals, stopSequence } from "./drain.ts";
import { serveLogger } from "./log.ts";
import { type OpenSkills, openSkills, type ServeOptions } from "./skills.ts";
import { portInUse, StartError } from "./start-error.ts";
import { UsageLog } from "./usage-log.ts";
import { folderProject, serverProject } from "../storage/project-identity.ts";

/**
 * HTTP requests in flight after a signal get longer than stdio's drain: no client is waiting for
 * this process to go (an orchestrator stopping a replica gives it a grace period, and the load
 * balancer retries elsewhere), and a request may be waiting for a first load, which takes about
 * 600 ms at 10,000 skills.
 */
export const HTTP_DRAIN_MS = DRAIN_DEADLINE_MS + 600;
/**
 * The whole HTTP shutdown: the drain, then `STREAMS_CLOSE_MS` for the streams to end, and time
 * to close the connections and write the start-up index. Within two seconds, as docs/http.md says.
 */
export const HTTP_EXIT_DEADLINE_MS = HTTP_DRAIN_MS + STREAMS_CLOSE_MS + 150;

/** The command line's part of the HTTP options; the rest comes from the config and the environment. */
export type HttpStartOptions = Omit<
  HttpOptions,
  "live" | "tokens" | "log" | "accessLog" | "oauth" | "metricsTokenFile" | "onUseBy" | "usageDropped"
> & {
  tokenFile?: string;
  /** `--public-url`, over the config's `http.publicUrl`. */
  publicUrl?: string;
};

const OAUTH_NEEDS_PUBLIC_URL =
  "http.oauth needs the server's public URL, which tokens are issued for: set http.publicUrl in the config or --public-url (e.g. https://skills.example.com/mcp)";

/**
 * Runs the HTTP MCP server until SIGTERM, SIGINT or SIGHUP: then it stops accepting, lets
 * in-flight requests finish, ends the streams and exits 0 (within `HTTP_EXIT_DEADLINE_MS`). A
 * token file that cannot be used, an exposed address without tokens or a port in use throw
 * `StartError`: the server does not start.
 */
export async function runHttp(options: ServeOptions, http: HttpStartOptions): Promise<void> {
  const startedAt = performance.now();
  const logger = serveLogger(options);
  const tokens = await startOrRefuse(http, () => loadBearerTokens(http.tokenFile, process.env, logger.warn));
  const configured = await startOrRefuse(http, () => configuredHttp(options, http, process.env));
  const source = new LiveRegistry();
  // Every use, with who signed in (docs/usage.md); each load says where the store is, the stop flushes it.
  const { publicUrl, ...configuredOptions } = configured;
  const usage = new UsageLog(
    logger.warn,
    () => (publicUrl !== undefined ? serverProject(publicUrl) : undefined) ?? folderProject(options.cwd),
  );
  const serving = await startOrRefuse(http, async () =>
    serveMcpOverHttp(source, {
      ...http,
      ...configuredOptions,
      // A governed server obeys the admin log with or without --no-watch, so its lists can change (docs/governance.md).
      live: (options.watch ?? true) || (await governedConfig(options)),
      tokens,
      onUseBy: (caller) => usage.hook(callerName(caller)),
      usageDropped: () => usage.dropped,
      log: logger.info,
      ...(logger.record && { accessLog: logger.record }),
    }),
  );
  logger.info(servingLine(serving, http.stateless, tokens, configured.oauth));

  const skills: OpenSkills = openSkills(options, source, logger, [["mcp command", startedAt]], {
    reloaded: (outcome) => serving.reloaded(outcome),
    usage,
  });
  const stop = stopSequence({
    deadlineMs: HTTP_EXIT_DEADLINE_MS,
    drain: () => serving.stop(HTTP_DRAIN_MS),
    skills: () => skills,
    say: logger.info,
  });
  onStopSignals((signal) => void stop(`${signal}: finishing requests in flight, then stopping`));
  await skills.live.start();
}

/**
 * The config's `http:` settings (read once, at start: a change needs a restart), with
 * `--public-url` over `http.publicUrl` and the introspection secret from its variable. A setting
 * that cannot be used stops the start: running without the sign-in someone configured is worse.
 * The one place the public URL is checked: OAuth options carry it as their `resource`.
 */
async function configuredHttp(
  options: ServeOptions,
  http: HttpStartOptions,
  env: Record<string, string | undefined>,
): Promise<Pick<HttpOptions, "oauth" | "metricsTokenFile"> & { publicUrl?: string }> {
  const { settings, problems } = await resolveHttpSettings({
    cwd: options.cwd,
    ...(options.home !== undefined && { home: options.home }),
  });
  if (problems.length > 0) throw new HttpConfigError(problems.join("; "));
  const publicUrl = http.publicUrl ?? settings.publicUrl;
  const tokenFile = settings.metrics?.tokenFile;
  const declared = settings.oauth;
  let oauth: OAuthOptions | undefined;
  if (declared !== undefined) {
    if (publicUrl === undefined) throw new HttpConfigError(OAUTH_NEEDS_PUBLIC_URL);
    const { introspection, audience, ...rest } = declared;
    oauth = { ...rest, resource: publicUrl, audience: audience ?? publicUrl };
    if (introspection !== undefined) {
      const secret = env[introspection.clientSecretEnv];
      if (secret === undefined || secret === "")
        throw new HttpConfigError(
          `http.oauth.introspection.clientSecretEnv names ${introspection.clientSecretEnv}, which is not set: put the introspection client's secret there`,
        );
      oauth.introspection = { url: introspection.url, clientId: introspection.clientId, clientSecret: secret };
    }
  }
  return {
    ...(oauth !== undefined && { oauth }),
    ...(tokenFile !== undefined && { metricsTokenFile: tokenFile }),
    // The server's name in the usage store: its public URL, when it has one (project-identity.ts).
    ...(publicUrl !== undefined && { publicUrl }),
  };
}

function servingLine(
  serving: HttpServing,
  stateless: boolean,
  tokens: BearerTokens | undefined,
  oauth: OAuthOptions | undefined,
): string {
  const modes = stateless ? "stateless: every request stands alone" : "2025-11-25 sessions and 2026-07-28 requests";
  const signIn = oauth ? `OAuth access tokens from ${oauth.issuer}` : undefined;
  const statics = tokens ? `${tokens.size} bearer token${tokens.size === 1 ? "" : "s"}` : undefined;
  const auth = [statics, signIn].filter((s) => s !== undefined).join(" and ") || "no authentication, this machine only";
  return `serving MCP over HTTP at ${serving.url} (${modes}; ${auth})`;
}

/** `start()`, with the errors that mean "not as asked" turned into `StartError`. */
async function startOrRefuse<T>(http: HttpStartOptions, start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (error) {
    if (error instanceof TokenConfigError || error instanceof HttpConfigError) throw new StartError(error.message);
    throw portInUse(error, http.host, http.port) ?? error;
  }
}
