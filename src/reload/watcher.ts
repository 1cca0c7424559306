/** The `fs.watch` handles for a set of targets, reporting any relevant change coarsely: the reload works out what changed. */
import { watch, type FSWatcher } from "node:fs";
import { join } from "node:path";
import { entryOf, watchKey, watchPoints, type WatchPoint, type WatchTarget } from "./watch-targets.ts";

interface Held {
  watcher: FSWatcher;
  point: WatchPoint;
}

/**
 * Holds the `fs.watch` handles for a set of targets and reports any relevant change (coarsely:
 * the reload works out what changed). `update` is called after every load, because what exists
 * (and so what can be watched) changes with the files.
 */
export class SkillWatcher {
  private readonly held = new Map<string, Held>();
  /** Watch points that failed, so a permanent problem is reported once, not on every reload. */
  private readonly failed = new Set<string>();
  private closed = false;

  constructor(
    private readonly onChange: () => void,
    private readonly warn: (message: string) => void,
  ) {}

  /**
   * Watches exactly what `targets` need now; with `trees: false`, all but the recursive watches of
   * skill folders (the costly ones: one OS watch per folder below). Returns true when a watch was
   * added: something may have changed between the load that computed `targets` and the moment the
   * watch began.
   */
  update(targets: readonly WatchTarget[], options: { trees: boolean } = { trees: true }): boolean {
    if (this.closed) return false;
    const points = watchPoints(targets).filter((p) => options.trees || !p.recursive);
    const wanted = new Map(points.map((p) => [watchKey(p), p]));
    for (const [key, held] of this.held) {
      if (!wanted.has(key)) this.release(key, held);
    }
    let added = false;
    for (const [key, point] of wanted) {
      const held = this.held.get(key);
      if (held) {
        held.point = point;
        continue;
      }
      added = this.hold(key, point) || added;
    }
    return added;
  }

  private hold(key: string, point: WatchPoint): boolean {
    let watcher: FSWatcher;
    try {
      watcher = watch(point.dir, { recursive: point.recursive, persistent: true }, (_event, filename) => {
        // Read at event time: `update` may have widened the names since.
        const names = this.held.get(key)?.point.names;
        if (names && typeof filename === "string") {
          const entry = entryOf(filename);
          if (!names.has(entry)) return;
          // The entry itself changed: if it is a watched folder, that watch may be on a deleted
          // folder (inotify follows the inode, not the path). Drop it; the reload re-creates it.
          this.releaseTree(join(point.dir, entry));
        }
        this.onChange();
      });
    } catch (error) {
      if (!this.failed.has(key))
        this.warn(
          `cannot watch ${point.dir} (${error instanceof Error ? error.message : String(error)}); changes there need a restart`,
        );
      this.failed.add(key);
      return false;
    }
    const held: Held = { watcher, point };
    // The folder went away or the OS dropped the watch: reload, which re-plans the watches.
    watcher.on("error", () => {
      this.release(key, held);
      this.onChange();
    });
    this.held.set(key, held);
    this.failed.delete(key);
    return true;
  }

  private releaseTree(dir: string): void {
    const key = watchKey({ dir, recursive: true });
    const held = this.held.get(key);
    if (held) this.release(key, held);
  }

  private release(key: string, held: Held): void {
    if (this.held.get(key) === held) this.held.delete(key);
    try {
      held.watcher.close();
    } catch {
      // Already closed by the OS; nothing to release.
    }
  }

  close(): void {
    this.closed = true;
    for (const [key, held] of this.held) this.release(key, held);
  }
}
