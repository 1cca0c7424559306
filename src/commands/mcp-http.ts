import { runHttp, StartError, type HttpStartOptions } from "../serve/http.ts";
import type { McpOptions } from "./mcp.ts";
import { UsageError } from "./support/command.ts";

/** The command line's part of the HTTP options; the rest comes from the environment. */
export type HttpCliOptions = HttpStartOptions;

/**
 * `skill-central mcp --http` (src/serve/http.ts owns its start-up, logging and shutdown). Bad
 * flags, a token file that cannot be used, an exposed address without tokens or a port in use
 * are usage errors: the server does not start.
 */
export async function runMcpHttp(options: McpOptions, http: HttpCliOptions): Promise<void> {
  try {
    await runHttp(options, http);
  } catch (error) {
    if (error instanceof StartError) throw new UsageError(error.message);
    throw error;
  }
}
