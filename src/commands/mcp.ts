import { mergeCatalogSettings, type CatalogMode } from "../config/catalog-settings.ts";
import { IndexWriter } from "../load/index-writer.ts";
import { referencedVersions, type LoadOptions, type LoadResult } from "../load/load-skills.ts";
import { loadReport } from "../load/report.ts";
import { StartupIndex, startupIndexEnabled, startupIndexPath } from "../load/startup-index.ts";
import { warmHandlebarsWhenIdle } from "../invoke/template-cache.ts";
import { LiveRegistry } from "../mcp/registry-source.ts";
import { serveMcpOverStdio } from "../mcp/stdio.ts";
import { StdioTransport, type FrameOutput } from "../mcp/stdio-transport.ts";
import { LiveSkills } from "../reload/live-skills.ts";
import { SERVER_NAME, VERSION } from "../version.ts";

export interface McpOptions extends LoadOptions {
  /** Print load phase timings to stderr. */
  debugTiming?: boolean;
  /** Watch layer folders and config files and reload on change (CLI `--no-watch` turns it off). Default true. */
  watch?: boolean;
  /** Items per page of list results (CLI `--page-size`); overrides `pageSize:` in the config. */
  pageSize?: number;
  /** CLI `--catalog`: overrides `catalog:` in the configs. */
  catalog?: CatalogMode;
}

/** How long the server waits for a client's first line (its initialize) before it starts loading. */
export const FIRST_LINE_WAIT_MS = 20;

/** After stdin closes or a signal, in-flight work gets this long before the process exits regardless. */
export const DRAIN_DEADLINE_MS = 900;

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
  let skills: OpenSkills | undefined;

  let exiting = false;
  const exit = async (code: number): Promise<void> => {
    if (exiting) return;
    exiting = true;
    skills?.live.close();
    setTimeout(() => process.exit(code), DRAIN_DEADLINE_MS).unref?.();
    // Ends open subscriptions/listen streams with their closing result, then flushes stdout.
    await serving.close();
    await transport.flush();
    skills?.close();
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
  // A client writes initialize as soon as it spawns us: answer it before the index and the first
  // load keep this thread busy. Bun hands stdin over a few turns of the event loop later (one
  // turn was not enough: initialize waited for the whole first load), so wait for the first line,
  // for a client that has not written yet at most FIRST_LINE_WAIT_MS, then let the SDK answer it.
  const milestones: Milestone[] = [["mcp command", startedAt]];
  if (process.stdin.isTTY !== true) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const read = await Promise.race([transport.firstLineRead.then(() => true), new Promise<false>((resolve) => (timer = setTimeout(resolve, FIRST_LINE_WAIT_MS, false)))]);
    clearTimeout(timer);
    if (read) milestones.push(["first line read", performance.now()]);
  }
  await new Promise<void>((resolve) => setImmediate(resolve));

  // A person who runs `skill-central mcp` in a terminal sees one line, not a silent wait. An IDE
  // (stdin a pipe) gets nothing it did not ask for.
  const firstLoad = process.stdin.isTTY === true ? (result: LoadResult) => log(terminalGreeting(result)) : undefined;
  skills = openSkills(options, source, milestones, firstLoad && { firstLoad });
  if (exiting) return;
  await skills.live.start();
}

/** The line for a person at a terminal: what is served, from where, and what the server waits for. */
export function terminalGreeting(result: LoadResult): string {
  const served = result.registry.served().length;
  const layers = result.registry.layers.map((l) => l.name);
  const from = layers.length === 0 ? "no layers" : `${layers.length} layer${layers.length === 1 ? "" : "s"} (${layers.join(", ")})`;
  return `${SERVER_NAME} ${VERSION}: serving ${served} skill${served === 1 ? "" : "s"} (${counts(result)}) from ${from}; waiting for an MCP client on stdin; Ctrl-C to stop`;
}

export interface OpenSkills {
  live: LiveSkills;
  /** Writes what the start-up index still lacks and closes it: call once, when the process ends. */
  close(): void;
}

/**
 * The skills behind either transport: the start-up index, then the live set (loaded, and
 * reloaded on change unless `watch` is false), each load swapped into `source` whole. Call
 * `live.start()` to run the first load.
 */
/** A moment of the start-up, in milliseconds since the process started, for `--debug-timing`. */
export type Milestone = [name: string, ms: number];

export function openSkills(options: McpOptions, source: LiveRegistry, milestones: readonly Milestone[], hooks: { firstLoad?: (result: LoadResult) => void } = {}): OpenSkills {
  const { debugTiming, watch = true, pageSize, catalog, ...load } = options;
  const index = startupIndexEnabled() ? StartupIndex.open(startupIndexPath(load.cwd, load.home)) : undefined;
  let writer: IndexWriter | undefined;
  // The listing's JSON text is garbage now; a young collection (well under a millisecond)
  // frees it before the load allocates, which keeps the heap, and so peak RSS, small.
  Bun.gc(false);
  const indexOpenedAt = performance.now();
  const rssAtIndex = debugTiming ? process.memoryUsage.rss() : 0;
  const live = new LiveSkills({
    load: { ...load, ...(index && { index }) },
    watch,
    warn: log,
    loaded(result, previous) {
      // On a reload, only what is new: a broken file that stays broken is not repeated per save.
      const before = new Set(previous && loadReport(previous));
      for (const line of loadReport(result)) if (!before.has(line)) log(line);
      const ms = Object.values(result.timing).reduce((sum, phase) => sum + phase, 0).toFixed(1);
      if (previous) log(`reloaded in ${ms} ms: ${counts(result)}`);
      if (debugTiming) {
        const phases = Object.entries(result.timing).map(([k, v]) => `${k} ${v.toFixed(1)} ms`).join(", ");
        log(`loaded ${result.registry.resolutions().length} ids in ${ms} ms (${phases}; ${result.unindexed.length} files parsed)`);
        // Milestones since the process started, for finding what delays the first answer.
        if (!previous) {
          const cpu = process.cpuUsage();
          const mb = (bytes: number) => (bytes / 1048576).toFixed(1);
          log(`since process start: ${milestones.map(([name, ms]) => `${name} ${ms.toFixed(1)} ms, `).join("")}index opened ${indexOpenedAt.toFixed(1)} ms, first load done ${performance.now().toFixed(1)} ms (cpu ${((cpu.user + cpu.system) / 1000).toFixed(1)} ms; rss ${mb(rssAtIndex)} MB at index, ${mb(process.memoryUsage.rss())} MB at load)`);
        }
      }
      // The same after a load: what it read and threw away goes before the first answers allocate.
      Bun.gc(false);
      source.swap(result.registry, pageSize ?? result.config.pageSize, mergeCatalogSettings(result.config.catalog, catalog !== undefined ? { mode: catalog } : undefined));
      if (!previous) {
        hooks.firstLoad?.(result);
        void warmHandlebarsWhenIdle(() => source.lastRequestAt);
      }
      if (index) {
        writer ??= new IndexWriter(index, result.store, () => source.lastRequestAt);
        writer.enqueue(result.unindexed, referencedVersions(result));
      }
    },
    failed(error, first) {
      log(`${first ? "loading" : "reload"} failed: ${error instanceof Error ? error.message : String(error)}${first ? "" : "; still serving the previous skills"}`);
      if (first) source.fail(error);
    },
  });
  return {
    live,
    close() {
      // A short session may end before the index was written while idle: write it now.
      writer?.flush();
      index?.close();
    },
  };
}
