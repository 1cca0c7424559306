/**
 * HOME folders for the servers under test, which is where a server keeps its start-up index
 * (`$HOME/.cache/skill-central`; the bench passes no XDG_CACHE_HOME or SKILL_CENTRAL_CACHE_DIR).
 * - cold: a new empty HOME per session, removed right after it;
 * - warm: one HOME per (target, corpus), populated by an unrecorded warm-up session and kept by
 *   every later warm session for the rest of the run;
 * - the floor keeps nothing, so it shares one empty HOME.
 * Every folder made here is removed at the end of the run, or on Ctrl-C or a failure.
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export class Homes {
  private readonly made = new Set<string>();
  private readonly kept = new Map<string, string>();

  constructor(private readonly root = tmpdir()) {}

  /** A new empty HOME; give it back with release() when its session is over. */
  fresh(label: string): string {
    const dir = mkdtempSync(join(this.root, `sc-bench-home-${label}-`));
    this.made.add(dir);
    return dir;
  }

  /** The same HOME every time for one key (e.g. "binary-n1000"), kept until removeAll(). */
  persistent(key: string): string {
    let dir = this.kept.get(key);
    if (!dir) {
      dir = this.fresh(key);
      this.kept.set(key, dir);
    }
    return dir;
  }

  release(dir: string): void {
    rmSync(dir, { recursive: true, force: true });
    this.made.delete(dir);
    for (const [key, kept] of this.kept) if (kept === dir) this.kept.delete(key);
  }

  removeAll(): void {
    for (const dir of [...this.made]) this.release(dir);
  }

  /** How many folders are still on disk (for the harness's tests). */
  get count(): number {
    return this.made.size;
  }
}

/** The start-up index a server left in a HOME: its files and their total size (with SQLite's side files). */
export interface IndexState {
  files: number;
  bytes: number;
}

export const INDEX_DIR = join(".cache", "skill-central");
const INDEX_FILE = /\.index\.sqlite$/;

export function indexIn(home: string): IndexState {
  const dir = join(home, INDEX_DIR);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return { files: 0, bytes: 0 };
  }
  const indexes = names.filter((n) => INDEX_FILE.test(n));
  let bytes = 0;
  for (const name of names) {
    if (!indexes.some((i) => name.startsWith(i))) continue;
    try {
      bytes += statSync(join(dir, name)).size;
    } catch {
      // Removed while we looked (a server still writing): not counted.
    }
  }
  return { files: indexes.length, bytes };
}
