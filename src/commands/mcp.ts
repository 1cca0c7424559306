import { formatDiagnostic } from "../diagnostics.ts";
import { loadSkills, type LoadOptions } from "../load-skills.ts";
import { createServer } from "../mcp/server.ts";
import { StdioTransport } from "../mcp/stdio-transport.ts";

export interface McpOptions extends LoadOptions {
  /** Print load phase timings to stderr. */
  debugTiming?: boolean;
}

/** After stdin closes, in-flight work gets this long before the process exits regardless. */
const DRAIN_DEADLINE_MS = 900;

const log = (line: string): void => {
  process.stderr.write(`[skill-central] ${line}\n`);
};

/**
 * Runs the stdio MCP server. Loading starts at once and `initialize` is answered without waiting
 * for it; list and get requests wait for the first load, so the client's first real answer is
 * never a partial set.
 */
export async function runMcp(options: McpOptions): Promise<void> {
  // Only the transport may write to stdout; anything else written there goes to stderr.
  const stdoutWrite = process.stdout.write.bind(process.stdout) as (chunk: string, cb: (error?: Error | null) => void) => boolean;
  process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;

  const started = performance.now();
  const loading = loadSkills(options).then((result) => {
    for (const d of result.diagnostics) log(formatDiagnostic(d));
    if (options.debugTiming) {
      const phases = Object.entries(result.timing).map(([k, v]) => `${k} ${v.toFixed(1)} ms`).join(", ");
      log(`loaded ${result.registry.resolutions().length} ids in ${(performance.now() - started).toFixed(1)} ms (${phases})`);
    }
    return result.registry;
  });
  const server = createServer({ current: () => loading });
  const transport = new StdioTransport({ input: process.stdin, write: stdoutWrite, warn: log });

  let exiting = false;
  const exit = async (code: number): Promise<void> => {
    if (exiting) return;
    exiting = true;
    setTimeout(() => process.exit(code), DRAIN_DEADLINE_MS).unref?.();
    await transport.flush();
    process.exit(code);
  };
  transport.onDrained = () => void exit(0);
  process.on("SIGINT", () => void exit(0));
  process.on("SIGTERM", () => void exit(0));
  process.stdout.on?.("error", () => void exit(0));

  await server.connect(transport);
}
