/** The digests of skill folders' files by file version, for the whole process: each version hashed once, on first use. */
import { sep } from "node:path";
import { hashFileVersion } from "../storage/digest.ts";
import { sameStamp, statStamp, type FileStamp } from "../storage/stamp.ts";
// Types only: the API loads skills without the index (and without SQLite).
import type { DigestRow, StartupIndex, StoredDigest } from "./startup-index.ts";

/** A file version and its digest. */
export type KnownDigest = FileStamp & { sha256: string };

/**
 * The digests of skill folders' files, by file version, for the whole process: each version is
 * hashed once (here, or by an earlier process: the start-up index keeps them), and only when
 * something asks for it. Reloads share the book, so an unchanged file is never hashed again.
 */
export class DigestBook {
  /** The latest version of each file worked out, by absolute path. */
  private readonly known = new Map<string, KnownDigest>();
  /** Hashed here, not yet in the index. */
  private pending: DigestRow[] = [];
  /** Files read and hashed so far (a version neither this process nor the index knew). */
  hashed = 0;
  /** Folders whose rows were read from the index (see `stored`). */
  private readonly foldersRead = new Set<string>();
  /** Rows read from the index and not yet asked for, by absolute path. */
  private readonly fromIndex = new Map<string, StoredDigest>();

  constructor(
    private readonly index: StartupIndex | undefined,
    /** Told when a served file turned out not to match its digest (the skill is reloaded). */
    readonly stale: (path: string) => void = () => {},
  ) {}

  /**
   * The current version of the file at `path` and its digest; throws when it cannot be read.
   * One stat when the version is known (here or in the index); else the file is read and hashed.
   */
  current(path: string, owner: string): KnownDigest {
    const stamp = statStamp(path);
    const known = this.known.get(path);
    if (stamp && known && sameStamp(known, stamp)) return known;
    const stored = stamp && this.stored(path, owner);
    if (stamp && stored && sameStamp(stored, stamp)) return this.remember(path, { ...stamp, sha256: stored.sha256 });
    const hashed = hashFileVersion(path);
    this.hashed++;
    // The index leaves out versions too recent to trust (racy stamps) when it writes them.
    if (this.index) this.pending.push({ path, owner, ...hashed });
    return this.remember(path, hashed);
  }

  /** Forgets what is known of a file: its next use hashes it again (a served file that did not match). */
  forget(path: string): void {
    this.known.delete(path);
    this.fromIndex.delete(path);
  }

  /**
   * The index's row for `path`. A folder's file is read with those of every other file of the
   * folder the first time one of them is asked for (a folder's files are worked out together):
   * one query per folder, not one per file. A row is taken once; what it says is then in `known`.
   * A file that is its own skill (a YAML skill's) is looked up alone: its folder is a layer's.
   */
  private stored(path: string, owner: string): StoredDigest | undefined {
    if (!this.index) return undefined;
    if (owner === path) return this.index.storedDigest(path);
    const folder = owner.slice(0, owner.lastIndexOf(sep) + 1);
    if (!this.foldersRead.has(folder)) {
      this.foldersRead.add(folder);
      for (const [file, row] of this.index.digestsUnder(folder)) this.fromIndex.set(file, row);
    }
    const row = this.fromIndex.get(path);
    this.fromIndex.delete(path);
    return row;
  }

  /** Digests hashed since the last call, for the index writer. */
  takePending(): DigestRow[] {
    const rows = this.pending;
    this.pending = [];
    return rows;
  }

  private remember(path: string, version: KnownDigest): KnownDigest {
    this.known.set(path, version);
    return version;
  }
}
