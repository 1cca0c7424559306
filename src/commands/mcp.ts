import { formatDiagnostic } from "../diagnostics.ts";
import type { LoadOptions, LoadResult } from "../load/load-skills.ts";
import { LiveRegistry } from "../mcp/registry-source.ts";
import { serveMcpOverStdio } from "../mcp/stdio.ts";
import { StdioTransport, type FrameOutput } from "../mcp/stdio-transport.ts";
import { LiveSkills } from "../reload/live-skills.ts";
import { ParseCache, parseCacheEnabled, parseCachePath } from "../load/parse-cache.ts";

export interface McpOptions extends LoadOptions {
  /** Print load phase timings to stderr. */
  debugTiming?: boolean;
  /** Watch layer folders and config files and reload on change (CLI `--no-watch` turns it off). Default true. */
  watch?: boolean;
  /** Items per page of list results (CLI `--page-size`); overrides `pageSize:` in the config. */
  pageSize?: number;
}

const CACHE_SAVE_DELAY_MS = 250;

/** After stdin closes or a signal, in-flight work gets this long before the process exits regardless. */
const DRAIN_DEADLINE_MS = 900;

export const log = (line: string): void => {
  process.stderr.write(`[skill-central] ${line}\n`);
};

function counts(result: LoadResult): string {
  const prompts = result.registry.ofType("prompt").length;
  const tools = result.registry.ofType("tool").length;
  return `${prompts} prompt${prompts === 1 ? "" : "s"}, ${tools} tool${tools === 1 ? "" : "s"}`;
}

/**
 * Runs the stdio MCP server. Loading starts at once and `initialize` is answered without waiting
 * for it; list and get requests wait for the first load, so the client's first real answer is
 * never a partial set. Then, unless `watch` is false, every change to a layer folder or config
 * file reloads the skills and swaps them in whole.
 */
export async function runMcp(options: McpOptions): Promise<void> {
  const startedAt = performance.now();
  // Only the transport may write to stdout; anything else written there goes to stderr.
  const stdoutWrite = process.stdout.write.bind(process.stdout) as FrameOutput["write"];
  process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
  const output: FrameOutput = { write: stdoutWrite, once: (event, listener) => process.stdout.once(event, listener) };

  const watch = options.watch ?? true;
  const source = new LiveRegistry();
  const transport = new StdioTransport({ input: process.stdin, output, warn: log });
  let live: LiveSkills | undefined;
  let parseCache: ParseCache | undefined;

  let exiting = false;
  const exit = async (code: number): Promise<void> => {
    if (exiting) return;
    exiting = true;
    live?.close();
    setTimeout(() => process.exit(code), DRAIN_DEADLINE_MS).unref?.();
    // Ends open subscriptions/listen streams with their closing result, then flushes stdout.
    await serving.close();
    await transport.flush();
    // A short session may end before the delayed save: write the cache now (within the deadline).
    await parseCache?.save();
    process.exit(code);
  };
  transport.onDrained = () => void exit(0);
  // A signal stops reading; what was read is answered, then the process exits (within the deadline).
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.on(signal, () => {
      setTimeout(() => process.exit(0), DRAIN_DEADLINE_MS).unref?.();
      transport.stopReading();
    });
  }
  process.stdout.on?.("error", () => void exit(0));
  // Served first, so `initialize` is answered while the cache is read and the skills load.
  const serving = serveMcpOverStdio(source, transport, { live: watch, warn: log });

  const skills = await openSkills(options, source, startedAt);
  parseCache = skills.parseCache;
  live = skills.live;
  if (exiting) return;
  await live.start();
}

/**
 * The skills behind either transport: the parse cache, then the live set (loaded, and reloaded
 * on change unless `watch` is false), each load swapped into `source` whole. Call `live.start()`
 * to run the first load.
 */
export async function openSkills(options: McpOptions, source: LiveRegistry, startedAt: number): Promise<{ live: LiveSkills; parseCache: ParseCache | undefined }> {
  const { debugTiming, watch = true, pageSize, ...load } = options;
  const cachePath = parseCacheEnabled() ? parseCachePath(load.cwd, load.home) : undefined;
  const parseCache = cachePath ? await ParseCache.open(cachePath) : undefined;
  const cacheOpenedAt = performance.now();
  const live = new LiveSkills({
    load: { ...load, ...(parseCache && { parseCache }) },
    watch,
    warn: log,
    loaded(result, previous) {
      // On a reload, only what is new: a broken file that stays broken is not repeated per save.
      const before = new Set(previous?.diagnostics.map(formatDiagnostic));
      for (const line of result.diagnostics.map(formatDiagnostic)) if (!before.has(line)) log(line);
      const ms = Object.values(result.timing).reduce((sum, phase) => sum + phase, 0).toFixed(1);
      if (previous) log(`reloaded in ${ms} ms: ${counts(result)}`);
      if (debugTiming) {
        const phases = Object.entries(result.timing).map(([k, v]) => `${k} ${v.toFixed(1)} ms`).join(", ");
        log(`loaded ${result.registry.resolutions().length} ids in ${ms} ms (${phases})`);
        // Milestones since the process started, for finding what delays the first answer.
        if (!previous) log(`since process start: mcp command ${startedAt.toFixed(1)} ms, cache opened ${cacheOpenedAt.toFixed(1)} ms, first load done ${performance.now().toFixed(1)} ms`);
      }
      source.swap(result.registry, pageSize ?? result.config.pageSize);
      // Written after the first answers have gone out: serialising a large cache takes a while.
      if (parseCache) setTimeout(() => void parseCache.save(), CACHE_SAVE_DELAY_MS);
    },
    failed(error, first) {
      log(`${first ? "loading" : "reload"} failed: ${error instanceof Error ? error.message : String(error)}${first ? "" : "; still serving the previous skills"}`);
      if (first) source.fail(error);
    },
  });
  return { live, parseCache };
}
