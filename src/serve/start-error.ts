/**
 * Why a serving command (`mcp`, `mcp --http`, `board`) does not start as asked: a token file, an
 * address, a port in use. The command line turns it into a usage error (exit 2), so each message
 * is written once, here or where the setting is read.
 */
export class StartError extends Error {
  override readonly name = "StartError";
}

/** `error` as the one port-in-use message, when that is what it is. */
export function portInUse(error: unknown, host: string, port: number): StartError | undefined {
  if ((error as { code?: string } | null)?.code !== "EADDRINUSE") return undefined;
  return new StartError(`port ${port} on ${host} is in use (choose another with --port, or --port 0 for any free one)`);
}
