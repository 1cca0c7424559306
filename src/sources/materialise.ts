import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { chmod, mkdir, rename, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { auditFetched } from "../audit/gate.ts";
import type { AuditSettings } from "../config/audit-settings.ts";
import type { CacheEntry } from "./cache-entry.ts";
import { contentHash } from "./content-hash.ts";
import { git } from "./git.ts";
import { removeTree } from "./remove-tree.ts";
import { checkTree, DEFAULT_LIMITS, type TreeFile, type TreeLimits } from "./tree-entries.ts";
import { forgetCopy, sealCopy, verifyCopy } from "./verify-copy.ts";

/**
 * Turns one folder of one commit into a verified, read-only copy on disk, without a checkout:
 * the tree is listed (`git ls-tree`), checked as a whole (tree-entries.ts), the blobs are read
 * raw (`git cat-file --batch`: no `.gitattributes` filter, smudge or line-ending conversion ever
 * runs), hashed, written into a fresh folder, made read-only, and only then renamed into place.
 * A process killed at any point leaves no folder under the copy's name; the next writer removes
 * the leftovers.
 */

/** A copy that cannot be made: the commit's folder breaks a rule, or its content is not what was expected. */
export class CopyRefused extends Error {
  override readonly name = "CopyRefused";
  constructor(
    message: string,
    readonly problems: readonly string[] = [],
  ) {
    super(problems.length > 0 ? `${message}:\n  ${problems.join("\n  ")}` : message);
  }
}

export interface Copy {
  dir: string;
  contentHash: string;
}

/** The regular files of `path` at `commit`, checked; throws `CopyRefused` when the tree breaks a rule. */
async function listFiles(entry: CacheEntry, commit: string, path: string, limits: TreeLimits): Promise<TreeFile[]> {
  const treeish = path === "" ? `${commit}^{tree}` : `${commit}:${path}`;
  const type = new TextDecoder()
    .decode(
      await git(`cannot read commit ${commit.slice(0, 12)}`, ["cat-file", "-t", treeish], { gitDir: entry.repo }).catch(
        () => new Uint8Array(),
      ),
    )
    .trim();
  if (type !== "tree") {
    throw new CopyRefused(
      type === ""
        ? `commit ${commit.slice(0, 12)} has no folder "${path}"`
        : `"${path}" in commit ${commit.slice(0, 12)} is a file, not a folder`,
    );
  }
  const listing = await git(`cannot list commit ${commit.slice(0, 12)}`, ["ls-tree", "-r", "-l", "-z", "--", treeish], {
    gitDir: entry.repo,
  });
  const checked = checkTree(listing, limits);
  if (!checked.ok)
    throw new CopyRefused(
      `commit ${commit.slice(0, 12)}${path ? ` (folder "${path}")` : ""} is refused`,
      checked.problems,
    );
  return checked.files;
}

/** The raw bytes of each blob, by object id, in one `git cat-file --batch` process. */
async function readBlobs(entry: CacheEntry, files: readonly TreeFile[]): Promise<Map<string, Uint8Array>> {
  const wanted = [...new Set(files.map((f) => f.oid))];
  const blobs = new Map<string, Uint8Array>();
  if (wanted.length === 0) return blobs;
  const out = await git("cannot read the files of the commit", ["cat-file", "--batch"], {
    gitDir: entry.repo,
    stdin: new TextEncoder().encode(`${wanted.join("\n")}\n`),
  });
  let at = 0;
  for (const oid of wanted) {
    const newline = out.indexOf(10, at);
    const header = new TextDecoder().decode(out.subarray(at, newline)).split(" ");
    if (newline < 0 || header[0] !== oid || header[1] !== "blob")
      throw new CopyRefused(`object ${oid} is missing or not a file (${header.join(" ")})`);
    const size = Number(header[2]);
    blobs.set(oid, out.subarray(newline + 1, newline + 1 + size));
    at = newline + 1 + size + 1;
  }
  return blobs;
}

/** Writes `files` under `dir` (which must not exist), read-only, folders last. */
export async function writeReadOnly(dir: string, files: readonly { path: string; bytes: Uint8Array }[]): Promise<void> {
  const folders = new Set<string>([dir]);
  for (const file of files)
    for (let d = dirname(join(dir, file.path)); d.length > dir.length; d = dirname(d)) folders.add(d);
  await mkdir(dir, { recursive: true });
  for (const folder of [...folders].sort()) await mkdir(folder, { recursive: true });
  // Bounded parallelism: thousands of open files at once would hit the descriptor limit.
  const BATCH = 64;
  for (let i = 0; i < files.length; i += BATCH) {
    await Promise.all(
      files.slice(i, i + BATCH).map((f) => writeFile(join(dir, f.path), f.bytes, { flag: "wx", mode: 0o444 })),
    );
  }
  // Deepest first, so each folder is still writable while its children are finished.
  for (const folder of [...folders].sort((a, b) => b.length - a.length)) await chmod(folder, 0o555);
}

export interface MaterialiseOptions {
  limits?: TreeLimits;
  /** The lock's `contentHash`: a copy that differs is refused, never written. */
  expect?: string;
  /** The audit gate (docs/audit.md): a blocked skill refuses the copy, never written. */
  audit?: AuditSettings | undefined;
}

/**
 * The verified copy of `path` at `commit` (which must be in the cache's repository), made if
 * missing; a copy on disk that fails verification is replaced. Call with the entry's lock held.
 */
export async function materialise(
  entry: CacheEntry,
  commit: string,
  path: string,
  options: MaterialiseOptions = {},
): Promise<Copy> {
  const dir = entry.copyDir(commit, path);
  const seal = entry.sealFile(commit, path);
  const existing = await verifyCopy(dir, seal, options.expect);
  // With an expected hash, a copy that matches it is all we need; without one, the commit's own
  // files decide, so a copy damaged on disk is never taken as the truth.
  if (existing.state === "ok" && options.expect !== undefined) return { dir, contentHash: existing.contentHash };

  const files = await listFiles(entry, commit, path, options.limits ?? DEFAULT_LIMITS);
  const blobs = await readBlobs(entry, files);
  const content = files.map((f) => ({ path: f.path, bytes: blobs.get(f.oid)! }));
  const hash = contentHash(content);
  if (options.expect !== undefined && hash !== options.expect) {
    throw new CopyRefused(
      `the files of commit ${commit.slice(0, 12)} do not match the lock's contentHash (${options.expect.slice(0, 19)}…, got ${hash.slice(0, 19)}…); not served`,
    );
  }
  const audited = options.audit && auditFetched(content, options.audit);
  if (audited && audited.refused.length > 0)
    throw new CopyRefused(
      `commit ${commit.slice(0, 12)}${path ? ` (folder "${path}")` : ""} is refused by the audit`,
      audited.refused,
    );
  if (existing.state === "ok" && existing.contentHash === hash) return { dir, contentHash: hash };
  if (existing.state !== "missing") {
    // On disk, but not what this commit holds: damaged after it was written.
    forgetCopy(dir);
    await removeTree(dir);
  }

  await mkdir(entry.copies, { recursive: true });
  const temporary = join(entry.copies, `.tmp-${commit.slice(0, 12)}-${process.pid}-${randomUUID().slice(0, 8)}`);
  try {
    await writeReadOnly(temporary, content);
    await rename(temporary, dir);
  } catch (error) {
    await removeTree(temporary);
    // Another writer (without our lock: a lock judged stale) finished the same copy first.
    if (existsSync(dir) && (await verifyCopy(dir, seal, hash)).state === "ok") return { dir, contentHash: hash };
    throw error;
  }
  // Hashed from git's own bytes just now: sealed with the stamps the files have on disk.
  await sealCopy(dir, seal, hash);
  return { dir, contentHash: hash };
}
