/** Removing verified copies no project has served for a month: age is the only rule safe across projects. */
import { readdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import type { CacheEntry } from "./cache-entry.ts";
import { removeTree } from "./remove-tree.ts";
import { forgetCopy } from "./verify-copy.ts";

/**
 * Copies not served for this long are removed (by the next sync or refresh of their repository).
 * A copy may be served by any project on the machine (another project may lock that commit), so
 * age is the only safe rule: every verification marks a copy as used (its seal's mtime).
 */
export const UNUSED_COPY_MAX_AGE_MS = 30 * 86_400_000;

/**
 * Removes the copies of `entry` unused for `maxAgeMs`, except those in `keep` and those that
 * `current.json` names. Call with the entry's lock held. Returns the folders removed.
 */
export async function pruneCopies(
  entry: CacheEntry,
  keep: Iterable<string>,
  maxAgeMs = UNUSED_COPY_MAX_AGE_MS,
  now = Date.now(),
): Promise<string[]> {
  const kept = new Set([...keep, ...(await entry.currentDirs())]);
  const removed: string[] = [];
  for (const name of await readdir(entry.copies).catch(() => [] as string[])) {
    if (name.startsWith(".")) continue;
    const dir = join(entry.copies, name);
    if (kept.has(dir)) continue;
    const seal = join(entry.dir, "seals", `${name}.json`);
    const usedAt =
      (await stat(seal).catch(() => undefined))?.mtimeMs ?? (await stat(dir).catch(() => undefined))?.mtimeMs ?? now;
    if (now - usedAt <= maxAgeMs) continue;
    forgetCopy(dir);
    await removeTree(dir);
    await rm(seal, { force: true });
    removed.push(dir);
  }
  return removed;
}
