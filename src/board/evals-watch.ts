/**
 * Tells the board when the eval workspace's results change, so it reads them again: a run that
 * adds `iteration-N/`, writes its benchmark.json or routing.json, or removes one. It watches the
 * workspace folder and each iteration's own folder, never recursively: a model run writes a
 * folder per eval and run below them (outputs, transcripts) that the board does not read, and a
 * recursive watch would hold one OS watch per folder. A workspace that does not exist yet is
 * watched from its nearest existing folder. Bursts are coalesced (reloader.ts), one read at a time.
 */
import { type FSWatcher, readdirSync, watch } from "node:fs";
import { basename, dirname, join } from "node:path";
import { Reloader } from "../reload/reloader.ts";
import { isDirectory } from "../storage/fs-state.ts";
import { BENCHMARK_FILE, ROUTING_FILE } from "../storage/eval-results.ts";

const RESULT_FILES = new Set([BENCHMARK_FILE, ROUTING_FILE]);

export class EvalsWatch {
  private readonly held = new Map<string, FSWatcher>();
  private readonly failed = new Set<string>();
  private readonly reloader: Reloader;
  private workspace: string | undefined;
  private closed = false;

  constructor(
    /** Reads the results again (after the watches are re-planned: a change from then on is seen). */
    changed: () => void,
    private readonly warn: (message: string) => void,
  ) {
    this.reloader = new Reloader(async () => {
      this.plan();
      changed();
      // A folder that appeared during the read is watched from now on, and read once more: what
      // was written in it before its watch began is not missed.
      if (this.plan()) this.reloader.schedule();
    });
  }

  /** Watches `workspace` from now on (a load's config may name another). */
  follow(workspace: string): void {
    this.workspace = workspace;
    this.plan();
  }

  /** The watches the workspace needs as it is now: `dir` → the entry names that matter (undefined: any). */
  private wanted(workspace: string): Map<string, ReadonlySet<string> | undefined> {
    const wanted = new Map<string, ReadonlySet<string> | undefined>();
    if (!isDirectory(workspace)) {
      let child = workspace;
      for (let dir = dirname(workspace); ; child = dir, dir = dirname(dir)) {
        if (isDirectory(dir)) {
          wanted.set(dir, new Set([basename(child)]));
          break;
        }
        if (dirname(dir) === dir) break;
      }
      return wanted;
    }
    // Its own name in its parent too: the workspace removed or replaced is a change.
    wanted.set(dirname(workspace), new Set([basename(workspace)]));
    wanted.set(workspace, undefined);
    let names: string[] = [];
    try {
      names = readdirSync(workspace);
    } catch {
      // Gone between the check and the read: the parent's watch sees it.
    }
    for (const name of names)
      if (/^iteration-\d+$/.test(name) && isDirectory(join(workspace, name)))
        wanted.set(join(workspace, name), RESULT_FILES);
    return wanted;
  }

  /** Holds the watches `wanted` names now; true when one was added. */
  private plan(): boolean {
    if (this.closed || this.workspace === undefined) return false;
    const wanted = this.wanted(this.workspace);
    for (const [dir, watcher] of this.held)
      if (!wanted.has(dir)) {
        watcher.close();
        this.held.delete(dir);
      }
    let added = false;
    for (const [dir, names] of wanted) {
      if (this.held.has(dir)) continue;
      try {
        const watcher = watch(dir, { persistent: true }, (_event, filename) => {
          if (names && typeof filename === "string" && !names.has(filename)) return;
          this.reloader.schedule();
        });
        watcher.on("error", () => {
          watcher.close();
          this.held.delete(dir);
          this.reloader.schedule();
        });
        this.held.set(dir, watcher);
        added = true;
      } catch (error) {
        if (!this.failed.has(dir)) {
          this.failed.add(dir);
          this.warn(`cannot watch ${dir} for eval results: ${String(error)}; the board shows them as of its last load`);
        }
      }
    }
    return added;
  }

  close(): void {
    this.closed = true;
    this.reloader.close();
    for (const watcher of this.held.values()) watcher.close();
    this.held.clear();
  }
}
