/** The digests of skill folders' files by file version, for the whole process: each version hashed once, on first use. */
import { hashFileVersion } from "../storage/digest.ts";
import { sameStamp, statStamp, type FileStamp } from "../storage/stamp.ts";
// Types only: the API loads skills without the index (and without SQLite).
import type { DigestRow, StartupIndex } from "./startup-index.ts";

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
    const stored = stamp && this.index?.digest(path, stamp);
    if (stamp && stored) return this.remember(path, { ...stamp, sha256: stored });
    const hashed = hashFileVersion(path);
    // The index leaves out versions too recent to trust (racy stamps) when it writes them.
    if (this.index) this.pending.push({ path, owner, ...hashed });
    return this.remember(path, hashed);
  }

  /** Forgets what is known of a file: its next use hashes it again (a served file that did not match). */
  forget(path: string): void {
    this.known.delete(path);
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
