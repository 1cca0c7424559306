/** Writing the start-up index in idle slices of a few milliseconds, so a session's first requests never queue behind it. */
import type { ContentStore } from "./content-store.ts";
import type { DigestBook } from "./digest-book.ts";
import type { FolderFacts } from "./folder-files.ts";
import { StartupIndex, type IndexEntry } from "./startup-index.ts";

/** A request this recent means the server is busy: writing waits. */
const QUIET_MS = 40;
/** How long one slice of writing may keep the thread (requests arriving meanwhile wait this long at most). */
const SLICE_MS = 4;
const POLL_MS = 25;

/**
 * Writes what a load parsed into the start-up index when the server has nothing else to do, in
 * slices of a few milliseconds, so a session's first requests never queue behind it; content
 * leaves memory as its rows are written. Then, in the same idle slices, works out the digests
 * of skill folders' files that no request needed yet, so the next start has them. Whatever is
 * left at exit is written then (digests not worked out are left for a later process).
 */
export class IndexWriter {
  private queue: IndexEntry[] = [];
  /** Folders whose files' digests are still to be worked out, in load order. */
  private folders: FolderFacts[] = [];
  private keep: ReadonlyArray<{ path: string; stamp: IndexEntry["stamp"] }> | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private closed = false;

  constructor(
    private readonly index: StartupIndex,
    private readonly store: ContentStore,
    private readonly digests: DigestBook,
    /** `performance.now()` of the latest request. */
    private readonly lastActivity: () => number,
  ) {}

  /** Queues a load's new rows; `keep` is every file version that load refers to (the rest are dropped). */
  enqueue(
    entries: readonly IndexEntry[],
    keep: ReadonlyArray<{ path: string; stamp: IndexEntry["stamp"] }>,
    folders: readonly FolderFacts[] = [],
  ): void {
    if (this.closed) return;
    // A later load's folders replace an earlier one's (a reload reuses those that did not change).
    this.folders = folders.filter((f) => !f.known);
    // A later load supersedes the rows of an earlier one that were not written yet.
    const fresh = new Set(entries.map((e) => e.path));
    this.queue = [...this.queue.filter((e) => !fresh.has(e.path)), ...entries];
    this.keep = keep;
    this.schedule(0);
  }

  private schedule(delay: number): void {
    if (this.timer || this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.tick();
    }, delay);
    this.timer.unref?.();
  }

  private tick(): void {
    if (performance.now() - this.lastActivity() < QUIET_MS) {
      this.schedule(POLL_MS);
      return;
    }
    const started = performance.now();
    while (this.queue.length > 0 && performance.now() - started < SLICE_MS) {
      const batch = this.queue.splice(0, 32);
      if (!this.write(batch)) {
        // Busy (another process writes) or broken: try again later; content stays in memory.
        this.queue = batch.concat(this.queue);
        this.schedule(POLL_MS * 8);
        return;
      }
    }
    while (this.queue.length === 0 && this.folders.length > 0 && performance.now() - started < SLICE_MS) {
      this.folders.pop()?.read();
    }
    // A slice's garbage (rows' UTF-8 copies, folder listings, hashers) goes before the next slice
    // makes more: a young collection, well under a millisecond, where letting it pile up over the
    // background pass added ~20 MB to the peak RSS of a cold start at 1,200 skill folders.
    Bun.gc(false);
    if (!this.index.writeDigests(this.digests.takePending())) {
      this.schedule(POLL_MS * 8);
      return;
    }
    if (this.queue.length > 0 || this.folders.length > 0) {
      this.schedule(1);
      return;
    }
    if (this.keep && this.index.saveListing(this.keep)) this.keep = undefined;
  }

  private write(batch: IndexEntry[]): boolean {
    if (!this.index.write(batch)) return false;
    for (const e of batch) if (StartupIndex.indexable(e.stamp)) this.store.persisted(e.path, e.stamp);
    return true;
  }

  /** Writes everything still queued, now (at exit). */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.queue.length > 0 && this.write(this.queue)) this.queue = [];
    this.index.writeDigests(this.digests.takePending());
    if (this.keep) this.index.saveListing(this.keep);
    this.keep = undefined;
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
  }
}
