/** The skills behind every serving process: opened with the start-up index, loaded, watched, and the GC policy that keeps the heap small. */
import { mergeCatalogSettings, type CatalogMode } from "../config/catalog-settings.ts";
import { mergeElicitationSettings, type ElicitationMode } from "../config/elicitation-settings.ts";
import { readFileSync } from "node:fs";
import { formatDiagnostic, type Diagnostic } from "../diagnostics.ts";
import { describeFsError } from "../storage/fs-errors.ts";
import { IndexWriter } from "../load/index-writer.ts";
import { referencedVersions, type LoadOptions, type LoadResult } from "../load/load-skills.ts";
import { loadReport } from "../load/report.ts";
import { StartupIndex, startupIndexEnabled, startupIndexPath } from "../load/startup-index.ts";
import type { LiveRegistry, ServedElicitation } from "../mcp/registry-source.ts";
import { LiveSkills } from "../reload/live-skills.ts";
import type { LogFormat, Logger } from "./log.ts";
import type { UsageLog } from "./usage-log.ts";

export interface ServeOptions extends LoadOptions {
  /** Print load phase timings to stderr. */
  debugTiming?: boolean;
  /** Watch layer folders and config files and reload on change (CLI `--no-watch` turns it off). Default true. */
  watch?: boolean;
  /** Items per page of list results (CLI `--page-size`); overrides `pageSize:` in the config. */
  pageSize?: number;
  /** CLI `--catalog`: overrides `catalog:` in the configs. */
  catalog?: CatalogMode;
  /** CLI `--log-format`: stderr as `[skill-central]` lines (the default) or JSON lines. */
  logFormat?: LogFormat;
  /** CLI `--elicitation`: overrides `elicitation:` in the configs. */
  elicitation?: ElicitationMode;
}

/**
 * The GC policy of the serving process: a young collection (well under a millisecond) right after
 * each step that leaves a large batch of garbage, before the next allocates: after the start-up
 * index is opened (its listing's JSON text) and after every load that parsed files (their texts).
 * The heap, and so peak RSS, stays small; full collections are left to the runtime. A load that
 * parsed nothing (a warm start) leaves little, so its collection waits until the requests that
 * waited for it are answered: asked for before, it held up a warm start's first answer (the
 * median from the first load to the first list's answer fell from ~55 to ~32 ms at 1,200 skill
 * folders on a busy machine with it a turn later).
 */
const collectLoadGarbage = (): void => Bun.gc(false);

/** A moment of the start-up, in milliseconds since the process started, for `--debug-timing`. */
export type Milestone = [name: string, ms: number];

export interface OpenSkills {
  live: LiveSkills;
  /**
   * Writes the pending uses and what the start-up index still lacks, and closes them: call once,
   * when the process ends. A database store's last uses are the promise's (bounded).
   */
  close(): Promise<void>;
}

export function counts(result: LoadResult): string {
  const prompts = result.registry.ofType("prompt").length;
  const tools = result.registry.ofType("tool").length;
  return `${prompts} prompt${prompts === 1 ? "" : "s"}, ${tools} tool${tools === 1 ? "" : "s"}`;
}

/**
 * The skills behind either transport: the start-up index, then the live set (loaded, and
 * reloaded on change unless `watch` is false), each load swapped into `source` whole. Call
 * `live.start()` to run the first load.
 */
export function openSkills(
  options: ServeOptions,
  source: LiveRegistry,
  logger: Logger,
  milestones: readonly Milestone[],
  hooks: {
    firstLoad?: (result: LoadResult) => void;
    reloaded?: (outcome: "ok" | "failed") => void;
    /** Every load, once it is served (the board shows each). */
    loaded?: (result: LoadResult) => void;
    /** The usage history the servers record into: each load tells it where the store is. */
    usage?: UsageLog;
  } = {},
): OpenSkills {
  const { debugTiming, watch = true, pageSize, catalog, logFormat, elicitation, ...load } = options;
  const index = startupIndexEnabled() ? StartupIndex.open(startupIndexPath(load.cwd, load.home)) : undefined;
  let writer: IndexWriter | undefined;
  let display = (path: string) => path;
  // A folder's walk is made when its files are first needed, after the load that listed the skill:
  // what it ran into is logged then, once per finding for the life of the process.
  const logged = new Set<string>();
  const onFolderFindings = (_skillFile: string, diagnostics: readonly Diagnostic[]) => {
    for (const d of diagnostics) {
      const line = formatDiagnostic(d, { display });
      if (!logged.has(line)) logger.info(line);
      logged.add(line);
    }
  };
  collectLoadGarbage();
  const atIndex: Milestone = ["index opened", performance.now()];
  const rssAtIndex = logger.debugging ? process.memoryUsage.rss() : 0;
  const live = new LiveSkills({
    load: { ...load, onFolderFindings, ...(index && { index }) },
    watch,
    warn: logger.warn,
    lastActivity: () => source.lastRequestAt,
    loaded(result, previous) {
      display = result.display;
      reportLoad(logger, result, previous);
      if (!previous && logger.debugging) logger.debug(startupLine([...milestones, atIndex], rssAtIndex));
      if (result.parsed > 0) collectLoadGarbage();
      // After this turn: the answers to requests that waited for this load go out first.
      else setImmediate(collectLoadGarbage);
      hooks.usage?.configure(result.config.usage);
      source.setElicitation(servedElicitation(result, elicitation, logger));
      source.swap(
        result.registry,
        pageSize ?? result.config.pageSize,
        mergeCatalogSettings(result.config.catalog, catalog !== undefined ? { mode: catalog } : undefined),
      );
      if (!previous) hooks.firstLoad?.(result);
      else hooks.reloaded?.("ok");
      hooks.loaded?.(result);
      if (index) {
        writer ??= new IndexWriter(index, result.store, result.digests, () => source.lastRequestAt);
        writer.enqueue(
          result.unindexed,
          referencedVersions(result),
          result.records.flatMap((r) => (r.files ? [r.files] : [])),
        );
      }
    },
    failed(error, first) {
      logger.warn(
        `${first ? "loading" : "reload"} failed: ${error instanceof Error ? error.message : String(error)}${first ? "" : "; still serving the previous skills"}`,
      );
      if (first) source.fail(error);
      else hooks.reloaded?.("failed");
    },
  });
  return {
    live,
    close() {
      // The uses first: they are the user's record, and a failing index write must not lose them.
      let uses: Promise<void> | undefined;
      try {
        uses = hooks.usage?.close();
      } finally {
        // A short session may end before the index was written while idle: write it now.
        writer?.flush();
        index?.close();
      }
      return uses ?? Promise.resolve();
    },
  };
}

/** The shortest key that protects the state of 2026-07-28 rounds (the SDK's HMAC codec's minimum). */
const MIN_STATE_KEY_BYTES = 32;

/**
 * The configured asking, with the shared state key read (once per load: a config edit can name
 * another file). A key that cannot be used is reported, and this process's own key protects the
 * state instead: a retry that lands on another replica is then refused, not trusted.
 */
function servedElicitation(result: LoadResult, flag: ElicitationMode | undefined, logger: Logger): ServedElicitation {
  const settings = mergeElicitationSettings(result.config.elicitation, flag !== undefined ? { mode: flag } : undefined);
  if (settings.stateKeyFile === undefined) return { mode: settings.mode };
  try {
    const key = new Uint8Array(readFileSync(settings.stateKeyFile));
    if (key.byteLength >= MIN_STATE_KEY_BYTES) return { mode: settings.mode, stateKey: key };
    logger.warn(
      `elicitation: the state key file has ${key.byteLength} bytes, fewer than ${MIN_STATE_KEY_BYTES}; using a key of this process instead`,
    );
  } catch (error) {
    logger.warn(
      `elicitation: cannot read the state key file (${describeFsError(error)}); using a key of this process instead`,
    );
  }
  return { mode: settings.mode };
}

/** A load's problems (on a reload only the new ones: a broken file that stays broken is not repeated per save), and its timings. */
function reportLoad(logger: Logger, result: LoadResult, previous: LoadResult | undefined): void {
  const before = new Set(previous && loadReport(previous));
  // One write for the whole report: a line per skill file with findings can be thousands of lines.
  logger.infoAll(loadReport(result).filter((line) => !before.has(line)));
  const ms = Object.values(result.timing)
    .reduce((sum, phase) => sum + phase, 0)
    .toFixed(1);
  if (previous) logger.info(`reloaded in ${ms} ms: ${counts(result)}`);
  if (!logger.debugging) return;
  const phases = Object.entries(result.timing)
    .map(([k, v]) => `${k} ${v.toFixed(1)} ms`)
    .join(", ");
  const audit = result.auditFiles;
  const audited = audit ? `; ${audit.read} files read and ${audit.hashed} hashed for the audit` : "";
  logger.debug(
    `loaded ${result.registry.resolutions().length} ids in ${ms} ms (${phases}; ${result.unindexed.length} files parsed${audited})`,
  );
}

/** Milestones since the process started, for finding what delays the first answer (`--debug-timing`). */
function startupLine(milestones: readonly Milestone[], rssAtIndex: number): string {
  const cpu = process.cpuUsage();
  const mb = (bytes: number) => (bytes / 1048576).toFixed(1);
  const steps = milestones.map(([name, ms]) => `${name} ${ms.toFixed(1)} ms, `).join("");
  const usage = `cpu ${((cpu.user + cpu.system) / 1000).toFixed(1)} ms; rss ${mb(rssAtIndex)} MB at index, ${mb(process.memoryUsage.rss())} MB at load`;
  return `since process start: ${steps}first load done ${performance.now().toFixed(1)} ms (${usage})`;
}
