import { TokenConfigError, loadBearerTokens } from "../mcp/http/bearer-tokens.ts";
import { HttpConfigError, serveMcpOverHttp, type HttpOptions } from "../mcp/http.ts";
import { LiveRegistry } from "../mcp/registry-source.ts";
import { UsageError } from "./support/command.ts";
import { log, openSkills, type McpOptions } from "./mcp.ts";

/** The command line's part of the HTTP options; the rest comes from the environment. */
export type HttpCliOptions = Omit<HttpOptions, "live" | "tokens" | "log"> & { tokenFile?: string };

/** Exit within this long of SIGTERM, whatever is still open. */
export const EXIT_DEADLINE_MS = 1_900;

/**
 * Runs the HTTP MCP server until SIGTERM, SIGINT or SIGHUP: then it stops accepting, lets
 * in-flight requests finish, ends the streams and exits 0 (within two seconds). Bad flags, a
 * token file that cannot be used, or an exposed address without tokens are usage errors: the
 * server does not start.
 */
export async function runMcpHttp(options: McpOptions, http: HttpCliOptions): Promise<void> {
  const startedAt = performance.now();
  const live = options.watch ?? true;
  let tokens;
  try {
    tokens = await loadBearerTokens(http.tokenFile, process.env, log);
  } catch (error) {
    if (error instanceof TokenConfigError) throw new UsageError(error.message);
    throw error;
  }
  const source = new LiveRegistry();
  let serving;
  try {
    serving = serveMcpOverHttp(source, { ...http, live, tokens, log });
  } catch (error) {
    if (error instanceof HttpConfigError) throw new UsageError(error.message);
    if ((error as { code?: string }).code === "EADDRINUSE") throw new UsageError(`port ${http.port} on ${http.host} is in use (choose another with --port, or --port 0 for any free one)`);
    throw error;
  }
  const modes = http.stateless ? "stateless: every request stands alone" : "2025-11-25 sessions and 2026-07-28 requests";
  log(`serving MCP over HTTP at ${serving.url} (${modes}; ${tokens ? `${tokens.size} bearer token${tokens.size === 1 ? "" : "s"}` : "no authentication, this machine only"})`);

  const skills = openSkills(options, source, [["mcp command", startedAt]]);
  let exiting = false;
  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) {
    process.on(signal, () => {
      if (exiting) return;
      exiting = true;
      setTimeout(() => process.exit(0), EXIT_DEADLINE_MS).unref?.();
      log(`${signal}: finishing requests in flight, then stopping`);
      // The skills stay live until the requests are answered: some may be waiting for a load.
      void serving
        .stop()
        .then(() => {
          skills.live.close();
          skills.close();
        })
        .finally(() => process.exit(0));
    });
  }
  await skills.live.start();
}
