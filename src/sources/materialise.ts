/**
 * Turns one folder of one commit into a verified, read-only copy on disk, without a checkout:
 * the tree is listed (`git ls-tree`), checked as a whole (tree-entries.ts), the blobs are read
 * raw (`git cat-file --batch`: no `.gitattributes` filter, smudge or line-ending conversion ever
 * runs), hashed, and written as a staged copy (staged-copy.ts: read-only, renamed into place,
 * sealed).
 */
import { auditCopy, type GateSettings } from "../audit/gate.ts";
import type { CacheEntry } from "./cache-entry.ts";
import { contentHash } from "./content-hash.ts";
import { git } from "./git.ts";
import { shortDigest } from "../storage/digest.ts";
import { StagedCopy } from "./staged-copy.ts";
import { checkTree, DEFAULT_LIMITS, type TreeFile, type TreeLimits } from "./tree-entries.ts";
import { verifyCopy } from "./verify-copy.ts";

/** A copy that cannot be made: the commit's folder breaks a rule, or its content is not what was expected (AuditRefused: the audit blocks a skill). */
export class CopyRefused extends Error {
  override readonly name: string = "CopyRefused";
  constructor(
    message: string,
    readonly problems: readonly string[] = [],
  ) {
    super(problems.length > 0 ? `${message}:\n  ${problems.join("\n  ")}` : message);
  }
}

/** A copy the audit gate refuses: `problems` name each blocked skill, its rule and place. */
export class AuditRefused extends CopyRefused {}

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

export interface MaterialiseOptions {
  limits?: TreeLimits;
  /** The lock's `contentHash`: a copy that differs is refused, never written. */
  expect?: string;
  /** The audit gate (docs/audit.md): a blocked skill refuses the copy, never written. */
  audit?: GateSettings | undefined;
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
      `the files of commit ${commit.slice(0, 12)} do not match the lock's contentHash (${shortDigest(options.expect)}, got ${shortDigest(hash)}); not served`,
    );
  }
  const refuse = (refused: readonly string[]) =>
    new AuditRefused(
      `commit ${commit.slice(0, 12)}${path ? ` (folder "${path}")` : ""} is refused by the audit`,
      refused,
    );
  if (existing.state === "ok" && existing.contentHash === hash) {
    // The verified copy holds these very files: judged where it is.
    const refused = await gate(dir, options.audit);
    if (refused.length > 0) throw refuse(refused);
    return { dir, contentHash: hash };
  }
  const staged = new StagedCopy(entry.copies, `${commit.slice(0, 12)}-`);
  try {
    await staged.write(content);
    const refused = await gate(staged.dir, options.audit);
    if (refused.length > 0) throw refuse(refused);
  } catch (error) {
    await staged.discard();
    throw error;
  }
  await staged.place(dir, seal, hash);
  return { dir, contentHash: hash };
}

/** The gate's refusals for the files at `dir` (none without a gate); new results are saved in the cache. */
async function gate(dir: string, settings: GateSettings | undefined): Promise<readonly string[]> {
  if (!settings) return [];
  const { refused } = await auditCopy(dir, settings);
  await settings.cache?.save();
  return refused;
}
