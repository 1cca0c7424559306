/** The skills over the server's lifetime: one load, then reloads after each burst of changes, off the request path. */
import { homedir } from "node:os";
import type { ResolvedConfig } from "../config/resolve-config.ts";
import { layersUnchanged, loadSkills, type LoadOptions, type LoadResult } from "../load/load-skills.ts";
import { layersFrom } from "../config/layer-source.ts";
// Types only: the refresh (and the audit gate and archive reader it brings) is imported when a layer needs it.
import type { BackgroundRefresh } from "../sources/refresh.ts";
import type { MissingCopies } from "../sources/fetch-missing.ts";
import type { AdminLogPoll } from "./admin-log-poll.ts";
import { DEBOUNCE_MS, Reloader } from "./reloader.ts";
import { watchTargets } from "./watch-targets.ts";
import { SkillWatcher } from "./watcher.ts";

export interface LiveSkillsOptions {
  load: Omit<LoadOptions, "previous" | "onConfig" | "onContentLost">;
  /** Watch layer folders and config files, and reload on change; git layers with `refresh` are fetched in the background. */
  watch: boolean;
  /** Every completed load, in order: the startup load (`previous` undefined), then each reload. */
  loaded: (result: LoadResult, previous: LoadResult | undefined) => void;
  /** A load that threw (not a broken file, which is a diagnostic): the previous skills stay. */
  failed: (error: unknown, first: boolean) => void;
  warn: (message: string) => void;
  /** `performance.now()` of the latest request: the first load's deferred watches wait for a quiet moment. */
  lastActivity?: () => number;
}

/** A request this recent means the server is busy: arming the deferred watches waits (see index-writer.ts)… */
const QUIET_MS = 40;
const POLL_MS = 25;
/** …but never longer than this: a client that never pauses (one polling a list) must not keep changes unseen. */
const MAX_DEFER_MS = 500;

/**
 * The skills over the server's lifetime: loads once, then (when watching) reloads after each
 * burst of changes, off the request path, one load at a time. Each load hands the previous one
 * on, so unchanged files are reused and a file that was good and breaks keeps its last good
 * version. Watches are armed as soon as a load knows its layers, before it reads any file, so a
 * change made while loading is never missed; they are re-planned on every load, since layers
 * come and go with config edits.
 *
 * The first load is the exception, to keep the first answer short: the recursive watches of
 * layer folders (one OS watch per folder below, ~35 ms at 1,200 skill folders) are armed only
 * once it is served and requests pause (half a second at most), then the layers are checked
 * against what that load read (discovery and a stat per file), so a change made before they began
 * is not missed either: it is reloaded as any change is.
 */
export class LiveSkills {
  private last: LoadResult | undefined;
  private readonly watcher: SkillWatcher | undefined;
  private readonly reloader: Reloader;
  /** Made when a load first has a git layer that follows a ref (`refresh:`), then kept to re-plan on every load. */
  private refresh: Promise<BackgroundRefresh> | undefined;
  /** Made when a load first has a locked layer whose copy is missing, then kept (it remembers what it tried). */
  private missing: Promise<MissingCopies> | undefined;
  private readonly home: string;
  /** Made when a load first obeys the admin log (the config names approvers). */
  /** Imported when a load first obeys the admin log: a server without governance never loads the store's modules for it. */
  private adminPoll: Promise<AdminLogPoll | undefined> | undefined;
  private closed = false;
  /** Whether the layer folders' recursive watches are armed (from the end of the first load on). */
  private treesArmed = false;
  /** The layers the latest load resolved (what the watches are planned from). */
  private config: ResolvedConfig | undefined;
  private readonly armed: Promise<void>;
  private resolveArmed: () => void = () => {};

  constructor(private readonly options: LiveSkillsOptions) {
    this.home = options.load.home ?? homedir();
    this.armed = new Promise((resolve) => {
      this.resolveArmed = resolve;
    });
    if (!options.watch) this.resolveArmed();
    this.reloader = new Reloader(() => this.load());
    this.watcher = options.watch ? new SkillWatcher(() => this.changed(), options.warn) : undefined;
  }

  /**
   * Plans background fetches from a load's layers. The module is imported only once a layer
   * follows a ref: a start without one never loads the audit gate, the archive reader or git's
   * helpers, which only a refresh uses.
   */
  private planRefreshes(config: ResolvedConfig): void {
    if (!this.options.watch || this.closed) return;
    if (!this.refresh && !layersFrom(config.layers, "git").some((l) => l.source.refreshMs !== undefined)) return;
    this.refresh ??= import("../sources/refresh.ts").then(
      ({ BackgroundRefresh }) =>
        new BackgroundRefresh({
          cwd: this.options.load.cwd,
          home: this.home,
          changed: () => this.reload(),
          log: this.options.warn,
        }),
    );
    this.refresh
      .then((refresh) => refresh.update(config.layers, config.audit))
      .catch((error: unknown) => this.options.warn(`cannot plan background git refreshes: ${String(error)}`));
  }

  /**
   * Fetches the locked copies a load found missing (sync.ts in `frozen` mode, through the gate),
   * once the first answers are out and the watches armed: the start is never held up. The module
   * (and the audit gate with it) is imported only when a copy is missing.
   */
  private planFetches(config: ResolvedConfig): void {
    if (!this.options.watch || this.closed) return;
    if (!config.layers.some((l) => l.missingLocked !== undefined)) return;
    const { cwd, builtin, builtinDir } = this.options.load;
    this.missing ??= import("../sources/fetch-missing.ts").then(
      ({ MissingCopies }) =>
        new MissingCopies({
          cwd,
          home: this.home,
          ...(builtin !== undefined && { builtin }),
          ...(builtinDir !== undefined && { builtinDir }),
          changed: () => this.reload(),
          log: this.options.warn,
        }),
    );
    Promise.all([this.missing, this.armed])
      .then(([missing]) => missing.update(config.layers))
      .catch((error: unknown) => this.options.warn(`cannot fetch the missing git or url layers: ${String(error)}`));
  }

  /** The startup load. */
  start(): Promise<void> {
    return this.reloader.now();
  }

  /**
   * Resolves once every watch is armed and the load that caught up with what they missed is done
   * (at once when not watching): from then on, any change to the skills is seen.
   */
  watching(): Promise<void> {
    return this.armed;
  }

  /** Asks for a reload (a skill's content turned out to be gone, say). */
  reload(): void {
    this.changed();
  }

  private changed(): void {
    this.reloader.schedule();
  }

  private watch(config: ResolvedConfig): void {
    this.config = config;
    // A watch that begins now, before the files are read, sees every later change.
    this.watcher?.update(watchTargets(config, { cwd: this.options.load.cwd, home: this.home }), {
      trees: this.treesArmed,
    });
  }

  /** After the first load is served: the layer folders' watches, then a load that catches up with what they missed. */
  private armTrees(): void {
    if (this.treesArmed || !this.watcher) return;
    this.treesArmed = true;
    const { lastActivity } = this.options;
    const deadline = performance.now() + MAX_DEFER_MS;
    const arm = () => {
      if (this.closed || !this.config) return;
      // The first answers go out first: a client's opening burst of requests is not held up.
      const now = performance.now();
      if (lastActivity && now - lastActivity() < QUIET_MS && now < deadline) {
        setTimeout(arm, POLL_MS);
        return;
      }
      this.watch(this.config);
      void this.catchUp().finally(() => this.resolveArmed());
    };
    // Not at once: the first load's answers (a list of thousands) are still being written out.
    setTimeout(arm, DEBOUNCE_MS);
  }

  /** What the deferred watches missed: nothing, most often (a check, not a load), else a reload. */
  private async catchUp(): Promise<void> {
    const previous = this.last;
    let unchanged = false;
    try {
      unchanged = previous !== undefined && (await layersUnchanged(previous));
    } catch {
      // A check that cannot be made is a change: the reload reports what is wrong.
    }
    if (unchanged || this.closed) return;
    this.changed();
    await this.reloader.idle();
  }

  private async load(): Promise<void> {
    if (this.closed) return;
    const previous = this.last;
    let result: LoadResult;
    try {
      result = await loadSkills({
        ...this.options.load,
        ...(previous && { previous }),
        onConfig: (config) => this.watch(config),
        onContentLost: () => this.changed(),
      });
    } catch (error) {
      this.options.failed(error, previous === undefined);
      if (!previous) this.armTrees();
      return;
    }
    if (this.closed) return;
    this.last = result;
    this.options.loaded(result, previous);
    if (!previous) this.armTrees();
    // After the answer is out: background fetches of git layers that follow a ref.
    this.planRefreshes(result.config);
    this.planFetches(result.config);
    this.pollAdminLog(result);
  }

  /**
   * While a load obeys the admin log, polls it for new entries (admin-log-poll.ts), with or
   * without `--no-watch` (a block is not a file change: replicas that watch nothing obey it too);
   * stops when the config names no approvers.
   */
  private pollAdminLog(result: LoadResult): void {
    const governance = result.governance;
    const store = result.config.stateStore;
    if (this.closed || governance === undefined || store === undefined) {
      void this.adminPoll?.then((poll) => poll?.close());
      this.adminPoll = undefined;
      return;
    }
    const newest = governance.newest;
    if (this.adminPoll) {
      void this.adminPoll.then((poll) => poll?.loaded(newest));
      return;
    }
    const pending: Promise<AdminLogPoll | undefined> = import("./admin-log-poll.ts").then(
      // Stopped while the import was under way (the config dropped approvers, or the server closed): no poll.
      ({ AdminLogPoll }) =>
        this.adminPoll === pending && !this.closed
          ? new AdminLogPoll(store, newest, () => this.reload(), this.options.warn)
          : undefined,
      (error: unknown) => {
        this.options.warn(`cannot poll the admin log: ${error instanceof Error ? error.message : String(error)}`);
        return undefined;
      },
    );
    this.adminPoll = pending;
  }

  /** Stops watching; a load in flight is discarded. */
  close(): void {
    this.closed = true;
    this.resolveArmed();
    this.reloader.close();
    this.watcher?.close();
    void this.adminPoll?.then((poll) => poll?.close());
    // One made after this (its import was under way) is closed as soon as it exists.
    void this.refresh?.then((refresh) => refresh.close()).catch(() => {});
    void this.missing?.then((missing) => missing.close()).catch(() => {});
  }
}
