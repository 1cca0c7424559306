import { homedir } from "node:os";
import { loadSkills, type LoadOptions, type LoadResult } from "../load/load-skills.ts";
import { BackgroundRefresh } from "../sources/refresh.ts";
import { Reloader } from "./reloader.ts";
import { watchTargets } from "./watch-targets.ts";
import { SkillWatcher } from "./watcher.ts";

export interface LiveSkillsOptions {
  load: LoadOptions;
  /** Watch layer folders and config files, and reload on change; git layers with `refresh` are fetched in the background. */
  watch: boolean;
  /** Every completed load, in order: the startup load (`previous` undefined), then each reload. */
  loaded: (result: LoadResult, previous: LoadResult | undefined) => void;
  /** A load that threw (not a broken file, which is a diagnostic): the previous skills stay. */
  failed: (error: unknown, first: boolean) => void;
  warn: (message: string) => void;
}

/**
 * The skills over the server's lifetime: loads once, then (when watching) reloads after each
 * burst of changes, off the request path. Each reload hands the previous load's files to the
 * next, so a file that was good and breaks keeps its last good version; the watches are
 * re-planned after every load, since layers come and go with config edits.
 */
export class LiveSkills {
  private last: LoadResult | undefined;
  private readonly watcher: SkillWatcher | undefined;
  private readonly reloader: Reloader;
  private readonly refresh: BackgroundRefresh | undefined;
  private readonly home: string;
  private closed = false;

  constructor(private readonly options: LiveSkillsOptions) {
    this.home = options.load.home ?? homedir();
    this.reloader = new Reloader(() => this.load());
    this.watcher = options.watch ? new SkillWatcher(() => this.reloader.schedule(), options.warn) : undefined;
    this.refresh = options.watch
      ? new BackgroundRefresh({ cwd: options.load.cwd, home: this.home, changed: () => this.reloader.schedule(), log: options.warn })
      : undefined;
  }

  /** The startup load; watching starts before its result is handed on. */
  start(): Promise<void> {
    return this.load();
  }

  private async load(): Promise<void> {
    if (this.closed) return;
    const previous = this.last;
    let result: LoadResult;
    try {
      result = await loadSkills({ ...this.options.load, ...(previous && { previous: previous.byFile }) });
    } catch (error) {
      this.options.failed(error, previous === undefined);
      return;
    }
    if (this.closed) return;
    this.last = result;
    // Watch before anyone sees the result: a client that has its first answer can edit at once.
    const added = this.watcher?.update(watchTargets(result.config, { cwd: this.options.load.cwd, home: this.home })) ?? false;
    this.options.loaded(result, previous);
    // After the answer is out: background fetches of git layers that follow a ref.
    this.refresh?.update(result.config.layers).catch((error: unknown) => this.options.warn(`cannot plan background git refreshes: ${String(error)}`));
    // A watch that began after this load read the files may have missed a change in between.
    // (At startup that window is the few milliseconds before the first answer; not worth a load.)
    if (added && previous) this.reloader.schedule();
  }

  /** Stops watching; a load in flight is discarded. */
  close(): void {
    this.closed = true;
    this.reloader.close();
    this.watcher?.close();
    this.refresh?.close();
  }
}
