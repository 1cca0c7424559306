/**
 * One repository's place in the user's cache, shared by every project and process on the machine:
 *
 *     <cache>/git/<host-path-hash>/
 *       lock            held while anything below is written (see entry-lock.ts)
 *       repo.git/       a bare repository: shallow fetches of the commits we use
 *       copies/<commit>[-<path hash>]/   verified, read-only copies of one folder of one commit
 *       seals/<copy>.json   a copy's contentHash and its files' stamps when it was last hashed
 *       current.json    for layers without a lock entry: the commit each ref+path serves now
 *       fetch.json      when the remote was last reached, the last failure, orphaned commits
 *
 * Copies are never modified once renamed into place, so readers need no lock.
 */
import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import type { Signer } from "../storage/allowed-signers.ts";
import { cacheRoot } from "../storage/cache-dir.ts";
import { shortHash } from "../storage/digest.ts";
import { acquireLock, type HeldLock, type LockOptions } from "./entry-lock.ts";
import { git, GitError, runGit } from "./git.ts";
import { cacheKey } from "./git-url.ts";
import { removeTree } from "./remove-tree.ts";

/** What `current.json` holds per `ref:path`: the copy a layer without a lock entry serves. */
export interface CurrentCopy {
  commit: string;
  contentHash: string;
  /** A layer with `signers`: who signed the commit. */
  signer?: Signer;
}

/** What `fetch.json` holds. Times are milliseconds since the epoch. */
export interface FetchRecord {
  lastSuccess?: number;
  lastAttempt?: number;
  /** The last failure's message (redacted), cleared by a success. */
  lastError?: string;
  /** Commits found gone from the remote (force-pushed away), with when that was seen. */
  orphaned?: Record<string, number>;
}

const PINNED = "refs/skill-central/commits/";
const FETCHED = "refs/skill-central/fetched";

/** The git layers' part of the user's cache. */
export function gitCacheRoot(home?: string): string {
  return join(cacheRoot(home), "git");
}

function copyName(commit: string, path: string): string {
  return path === "" ? commit : `${commit}-${shortHash(path, 12)}`;
}

async function readJson<T>(file: string, fallback: T): Promise<T> {
  try {
    const data = JSON.parse(await readFile(file, "utf8")) as unknown;
    return data && typeof data === "object" && !Array.isArray(data) ? (data as T) : fallback;
  } catch {
    return fallback;
  }
}

/** Writes `text` whole or not at all: a temporary file beside it, renamed over it. */
export async function writeFileAtomically(file: string, text: string): Promise<void> {
  const temporary = `${file}.${process.pid}-${randomUUID().slice(0, 8)}.tmp`;
  try {
    await Bun.write(temporary, text);
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

function writeJsonAtomically(file: string, data: unknown): Promise<void> {
  return writeFileAtomically(file, `${JSON.stringify(data, null, 2)}\n`);
}

export class CacheEntry {
  readonly dir: string;
  readonly repo: string;
  readonly copies: string;

  constructor(
    /** The URL as configured (with any credentials): passed to git, never printed. */
    readonly url: string,
    home?: string,
  ) {
    this.dir = join(gitCacheRoot(home), cacheKey(url));
    this.repo = join(this.dir, "repo.git");
    this.copies = join(this.dir, "copies");
  }

  get lockFile(): string {
    return join(this.dir, "lock");
  }

  get currentFile(): string {
    return join(this.dir, "current.json");
  }

  get fetchFile(): string {
    return join(this.dir, "fetch.json");
  }

  /** Where the copy of `path` at `commit` lives (whether or not it exists yet). */
  copyDir(commit: string, path: string): string {
    return join(this.copies, copyName(commit, path));
  }

  /** Where the seal of that copy lives (see verify-copy.ts). */
  sealFile(commit: string, path: string): string {
    return join(this.dir, "seals", `${copyName(commit, path)}.json`);
  }

  // ---- reading: no lock needed (every file is replaced whole) ----

  async current(ref: string, path: string): Promise<CurrentCopy | undefined> {
    const all = await readJson<Record<string, CurrentCopy>>(this.currentFile, {});
    const entry = all[`${ref}:${path}`];
    return entry && typeof entry.commit === "string" && typeof entry.contentHash === "string" ? entry : undefined;
  }

  /** The copy folders `current.json` names (for every ref and path). */
  async currentDirs(): Promise<string[]> {
    const all = await readJson<Record<string, CurrentCopy>>(this.currentFile, {});
    // Refs cannot contain ":" (checked in the config), so the first one ends the ref.
    return Object.entries(all).map(([key, copy]) => this.copyDir(copy.commit, key.slice(key.indexOf(":") + 1)));
  }

  fetchRecord(): Promise<FetchRecord> {
    return readJson<FetchRecord>(this.fetchFile, {});
  }

  // ---- writing: only while holding the entry's lock ----

  async lock(options?: LockOptions): Promise<HeldLock | undefined> {
    await mkdir(this.dir, { recursive: true });
    return acquireLock(this.lockFile, options);
  }

  async setCurrent(ref: string, path: string, copy: CurrentCopy): Promise<boolean> {
    const all = await readJson<Record<string, CurrentCopy>>(this.currentFile, {});
    const key = `${ref}:${path}`;
    const was = all[key];
    if (
      was?.commit === copy.commit &&
      was.contentHash === copy.contentHash &&
      was.signer?.fingerprint === copy.signer?.fingerprint
    )
      return false;
    all[key] = copy;
    await writeJsonAtomically(this.currentFile, all);
    return true;
  }

  /** Records a remote contact: a success clears the last error. */
  async recordFetch(
    outcome: { ok: true } | { ok: false; error: string },
    orphaned?: { commit: string; gone: boolean },
  ): Promise<void> {
    const record = await this.fetchRecord();
    const now = Date.now();
    record.lastAttempt = now;
    if (outcome.ok) {
      record.lastSuccess = now;
      delete record.lastError;
    } else {
      record.lastError = outcome.error;
    }
    if (orphaned) {
      const known = { ...record.orphaned };
      if (orphaned.gone) known[orphaned.commit] ??= now;
      else delete known[orphaned.commit];
      record.orphaned = known;
    }
    await writeJsonAtomically(this.fetchFile, record);
  }

  /** The bare repository, created whole (initialised beside it, then renamed) if missing. */
  async ensureRepo(): Promise<void> {
    if (existsSync(join(this.repo, "HEAD"))) return;
    await mkdir(this.dir, { recursive: true });
    const temporary = `${this.repo}.tmp-${process.pid}`;
    await rm(temporary, { recursive: true, force: true });
    await git("cannot create the cache repository", ["init", "--bare", "--quiet", "--template=", temporary]);
    await rm(this.repo, { recursive: true, force: true });
    await rename(temporary, this.repo);
  }

  /** Removes what a killed writer left behind: unfinished copies and repositories. */
  async removeLeftovers(): Promise<void> {
    const names = await readdir(this.copies).catch(() => [] as string[]);
    await Promise.all(names.filter((n) => n.startsWith(".tmp-")).map((n) => removeTree(join(this.copies, n))));
    const seals = join(this.dir, "seals");
    for (const name of await readdir(seals).catch(() => [] as string[]))
      if (name.endsWith(".tmp")) await rm(join(seals, name), { force: true });
    for (const name of await readdir(this.dir).catch(() => [] as string[])) {
      if (/^(repo|probe)\.git\.tmp-/.test(name) || name === "probe.git")
        await rm(join(this.dir, name), { recursive: true, force: true });
    }
  }

  async hasCommit(commit: string): Promise<boolean> {
    if (!existsSync(join(this.repo, "HEAD"))) return false;
    const run = await runGit(["cat-file", "-e", `${commit}^{commit}`], { gitDir: this.repo, timeoutMs: 30_000 });
    return run.code === 0;
  }

  /**
   * The commit `ref` names on the remote now, fetched (one commit deep) into the cache and pinned
   * there, so that housekeeping never prunes a commit a copy came from.
   */
  async fetchRef(ref: string, timeoutMs?: number): Promise<string> {
    await this.fetchOne(`cannot fetch "${ref}"`, `+${ref}:${FETCHED}`, timeoutMs);
    const commit = new TextDecoder()
      .decode(
        await git(`"${ref}" is not a commit`, ["rev-parse", "--verify", "--quiet", `${FETCHED}^{commit}`], {
          gitDir: this.repo,
        }),
      )
      .trim();
    await this.pin(commit);
    return commit;
  }

  /** Makes `commit` available in the cache: from the cache itself, else fetched by its id. */
  async fetchCommit(commit: string, timeoutMs?: number): Promise<"cached" | "fetched"> {
    if (await this.hasCommit(commit)) {
      await this.pin(commit);
      return "cached";
    }
    await this.fetchOne(`cannot fetch commit ${commit.slice(0, 12)}`, `+${commit}:${PINNED}${commit}`, timeoutMs);
    return "fetched";
  }

  /**
   * Whether `older` is an ancestor of `newer` (both in the cache): "unknown" when their history
   * cannot be had. The cache's fetches are one commit deep, so `newer`'s history back to `older`'s
   * committer date is fetched when the commits at hand do not already say "yes" and `older` is not
   * dated after `newer` (a commit moving forward costs no fetch).
   */
  async isAncestor(older: string, newer: string, timeoutMs?: number): Promise<"yes" | "no" | "unknown"> {
    const ask = async () =>
      (await runGit(["merge-base", "--is-ancestor", older, newer], { gitDir: this.repo, timeoutMs: 30_000 })).code;
    if ((await ask()) === 0) return "yes";
    const [seconds, newerSeconds] = await Promise.all([this.committerTime(older), this.committerTime(newer)]);
    if (seconds === undefined || newerSeconds === undefined) return "unknown";
    // A commit dated after `newer` is not among its ancestors (barring a committer's skewed clock): no fetch.
    if (seconds > newerSeconds) return "no";
    const options = ["--quiet", "--no-tags", "--no-recurse-submodules", "--no-write-fetch-head"];
    const deepen = await runGit(["fetch", ...options, `--shallow-since=${seconds - 1}`, "--", this.url, newer], {
      gitDir: this.repo,
      url: this.url,
      ...(timeoutMs !== undefined && { timeoutMs }),
    });
    if (deepen.code !== 0) return "unknown";
    const code = await ask();
    return code === 0 ? "yes" : code === 1 ? "no" : "unknown";
  }

  /** A commit's committer time (seconds), from the cache; undefined when it cannot be read. */
  private async committerTime(commit: string): Promise<number | undefined> {
    const raw = await runGit(["cat-file", "commit", commit], { gitDir: this.repo, timeoutMs: 30_000 });
    const seconds = /^committer .* (\d+) [+-]\d{4}$/m.exec(new TextDecoder().decode(raw.stdout))?.[1];
    return raw.code === 0 && seconds !== undefined ? Number(seconds) : undefined;
  }

  /** One commit, one deep, from the remote into the cache under the refspec's name: no tags, no submodules. */
  private async fetchOne(failure: string, refspec: string, timeoutMs?: number): Promise<void> {
    await this.ensureRepo();
    const options = ["--quiet", "--no-tags", "--no-recurse-submodules", "--no-write-fetch-head", "--depth=1"];
    await git(failure, ["fetch", ...options, "--", this.url, refspec], {
      gitDir: this.repo,
      url: this.url,
      ...(timeoutMs !== undefined && { timeoutMs }),
    });
  }

  private async pin(commit: string): Promise<void> {
    await git("cannot record the commit in the cache", ["update-ref", `${PINNED}${commit}`, commit], {
      gitDir: this.repo,
    });
  }

  /**
   * The commits `ref` may name on the remote (`git ls-remote`), without fetching anything: the
   * first match in git's own order of ref names (exact, tags, branches), tags peeled.
   */
  async remoteCommit(ref: string, timeoutMs = 30_000): Promise<string | undefined> {
    const out = new TextDecoder().decode(
      await git("cannot reach the remote", ["ls-remote", "--", this.url, ref], { url: this.url, timeoutMs }),
    );
    const refs = new Map<string, string>();
    for (const line of out.split("\n")) {
      const [oid, name] = line.split("\t");
      if (oid && name) refs.set(name, oid);
    }
    for (const name of [ref, `refs/${ref}`, `refs/tags/${ref}`, `refs/heads/${ref}`, `refs/remotes/${ref}`]) {
      const oid = refs.get(`${name}^{}`) ?? refs.get(name);
      if (oid) return oid;
    }
    return undefined;
  }

  /**
   * Whether the remote still has `commit`, asked without touching the cache's repository (where
   * git would skip the remote for an object it already has): a throwaway repository fetches just
   * that commit object. "unknown" when the remote could not be asked.
   */
  async probeCommit(commit: string, timeoutMs = 30_000): Promise<"present" | "gone" | "unknown"> {
    const probe = join(this.dir, "probe.git");
    await rm(probe, { recursive: true, force: true });
    try {
      await git("cannot create a probe repository", ["init", "--bare", "--quiet", "--template=", probe]);
      const run = await runGit(
        [
          "fetch",
          "--quiet",
          "--no-tags",
          "--no-write-fetch-head",
          "--depth=1",
          "--filter=tree:0",
          "--",
          this.url,
          commit,
        ],
        { gitDir: probe, url: this.url, timeoutMs },
      );
      if (run.code === 0) return "present";
      return isGoneError(run.stderr) ? "gone" : "unknown";
    } catch (error) {
      if (error instanceof GitError) return "unknown";
      throw error;
    } finally {
      await rm(probe, { recursive: true, force: true });
    }
  }
}

/** git's ways of saying that the remote does not have an object or ref we asked for. */
export function isGoneError(stderr: string): boolean {
  return /not our ref|no such remote ref|couldn't find remote ref|unadvertised object|not a valid object|did not send all necessary objects/i.test(
    stderr,
  );
}
