/**
 * Whether a copy on disk holds what its contentHash says, cheaply enough for every start-up.
 *
 * Hashing every byte costs ~12 ms per 1,000 small files; reading each file's stamp costs ~3 ms.
 * So a copy's files are hashed in full once, and the result is sealed together with their
 * stamps (size, inode, change time, modification time). While the stamps are unchanged, the seal
 * stands for the hash. A file cannot be changed, replaced, added or removed without changing a
 * stamp: the change time (ctime) moves on every write, chmod or rename and cannot be set back by
 * its owner. Anything else (a seal missing, a copy moved to another disk) means a full hash.
 */
import { existsSync, lstatSync, readdirSync } from "node:fs";
import { mkdir, readFile, utimes } from "node:fs/promises";
import { dirname, join } from "node:path";
import { sha256Hex } from "../storage/digest.ts";
import { writeFileAtomically } from "./cache-entry.ts";
import { hashCopy } from "./content-hash.ts";

export type CopyState =
  | { state: "ok"; contentHash: string }
  | { state: "missing" }
  | { state: "mismatch"; contentHash?: string };

interface Seal {
  contentHash: string;
  stamp: string;
}

/** Verified in this process: copies are immutable, so each is checked once per process. */
const verified = new Map<string, string>();

/**
 * A seal's modification time says when its copy was last served (see prune.ts): touched when a
 * copy is verified, at most once a day per process, without waiting for it.
 */
const USE_MARK_INTERVAL_MS = 86_400_000;
const marked = new Map<string, number>();

function markUsed(sealFile: string): void {
  const now = Date.now();
  if (now - (marked.get(sealFile) ?? 0) < USE_MARK_INTERVAL_MS) return;
  marked.set(sealFile, now);
  utimes(sealFile, now / 1000, now / 1000).catch(() => {});
}

/**
 * One hash over every file's path and stamp; throws for anything but files and folders.
 * Synchronous on purpose: a thousand `lstat` calls take ~2.5 ms in a row, twice that as promises.
 */
function stampOf(dir: string): string {
  const lines: string[] = [];
  const walk = (rel: string): void => {
    for (const entry of readdirSync(join(dir, rel), { withFileTypes: true })) {
      const path = rel === "" ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) {
        const s = lstatSync(join(dir, path));
        lines.push(`${path}\0${s.size}\0${s.ino}\0${s.ctimeMs}\0${s.mtimeMs}\n`);
      } else throw new Error(`${path} is not a regular file`);
    }
  };
  walk("");
  return sha256Hex(lines.sort().join(""));
}

async function readSeal(file: string): Promise<Seal | undefined> {
  try {
    const seal = JSON.parse(await readFile(file, "utf8")) as Partial<Seal>;
    return typeof seal.contentHash === "string" && typeof seal.stamp === "string" ? (seal as Seal) : undefined;
  } catch {
    return undefined;
  }
}

/** Records the copy's hash with its current stamps. Best effort: without a seal we only hash again. */
export async function sealCopy(dir: string, sealFile: string, contentHash: string): Promise<void> {
  try {
    const stamp = stampOf(dir);
    await mkdir(dirname(sealFile), { recursive: true });
    await writeFileAtomically(sealFile, `${JSON.stringify({ contentHash, stamp })}\n`);
    verified.set(dir, contentHash);
  } catch {
    // A cache that cannot be written is slower next time, nothing else.
  }
}

/** Whether the copy at `dir` exists and hashes to `expected` (when given). */
export async function verifyCopy(dir: string, sealFile: string, expected?: string): Promise<CopyState> {
  let actual = verified.get(dir);
  if (actual === undefined) {
    if (!existsSync(dir)) return { state: "missing" };
    try {
      const seal = await readSeal(sealFile);
      const stamp = stampOf(dir);
      if (seal?.stamp === stamp) actual = seal.contentHash;
      else {
        actual = await hashCopy(dir);
        await sealCopy(dir, sealFile, actual);
      }
    } catch {
      return { state: "mismatch" };
    }
    verified.set(dir, actual);
  }
  markUsed(sealFile);
  return expected === undefined || actual === expected
    ? { state: "ok", contentHash: actual }
    : { state: "mismatch", contentHash: actual };
}

/** Forgets what is known of a copy that is about to be removed or replaced. */
export function forgetCopy(dir: string): void {
  verified.delete(dir);
}
