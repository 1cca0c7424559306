import { homedir } from "node:os";
import type { ResolvedConfig } from "../config/resolve-config.ts";
import { loadSkills, type LoadOptions, type LoadResult } from "../load/load-skills.ts";
import { BackgroundRefresh } from "../sources/refresh.ts";
import { Reloader } from "./reloader.ts";
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
}

/**
 * The skills over the server's lifetime: loads once, then (when watching) reloads after each
 * burst of changes, off the request path, one load at a time. Each load hands the previous one
 * on, so unchanged files are reused and a file that was good and breaks keeps its last good
 * version. Watches are armed as soon as a load knows its layers, before it reads any file, so a
 * change made while loading (the first load included) is never missed; they are re-planned on
 * every load, since layers come and go with config edits.
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
      ? new BackgroundRefresh({
          cwd: options.load.cwd,
          home: this.home,
          changed: () => this.reload(),
          log: options.warn,
        })
      : undefined;
  }

  /** The startup load. */
  start(): Promise<void> {
    return this.reloader.now();
  }

  /** Asks for a reload (a skill's content turned out to be gone, say). */
  reload(): void {
    this.reloader.schedule();
  }

  private watch(config: ResolvedConfig): void {
    // A watch that begins now, before the files are read, sees every later change.
    this.watcher?.update(watchTargets(config, { cwd: this.options.load.cwd, home: this.home }));
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
        onContentLost: () => this.reloader.schedule(),
      });
    } catch (error) {
      this.options.failed(error, previous === undefined);
      return;
    }
    if (this.closed) return;
    this.last = result;
    this.options.loaded(result, previous);
    // After the answer is out: background fetches of git layers that follow a ref.
    this.refresh
      ?.update(result.config.layers)
      .catch((error: unknown) => this.options.warn(`cannot plan background git refreshes: ${String(error)}`));
  }

  /** Stops watching; a load in flight is discarded. */
  close(): void {
    this.closed = true;
    this.reloader.close();
    this.watcher?.close();
    this.refresh?.close();
  }
}
