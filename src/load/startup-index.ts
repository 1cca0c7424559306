/**
 * What the last process learnt of each skill file, so that a start where few files changed reads
 * and parses only those:
 * - the listing: for every file version (path and stamp), its `Skill` and its findings — all the
 *   first answers need — as JSON documents of 1,000 files each, all read at start;
 * - the content: each served file version's template and examples, one row each, read when the
 *   skill is first used (and kept while a reload still serves that version).
 *
 * SQLite (bun:sqlite), chosen by measurement at 10,000 skills against the JSON parse cache it
 * replaces (a 28 MB file that took 170–280 ms to open and sat in memory whole, twice while it was
 * rewritten), one row per file with JSON columns (~50 ms to open: 10,000 rows materialised and
 * 20,000 small JSON.parse calls) and Bun's structured-clone serialisation (deserialising is no
 * faster than JSON.parse; serialising is 3× slower): opening is ~0.1 ms, the listing parses in
 * ~15 ms, a content read is ~7 µs, an update writes only the rows that changed, and two
 * processes on one project (two IDE windows) share the file safely (WAL).
 *
 * Everything depends only on a file's bytes and on this version of skill-central, which keys
 * the whole index; any problem with the index file means starting without one.
 */
import { Database, type Statement } from "bun:sqlite";
import { mkdirSync, rmSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, sep } from "node:path";
import type { Diagnostic } from "../diagnostics.ts";
import type { Skill, SkillContent, SkillExample } from "../skill/skill.ts";
import { cacheRoot, projectCacheName } from "../storage/cache-dir.ts";
import { type FileStamp, sameStamp } from "../storage/stamp.ts";
import { VERSION } from "../version.ts";

export interface IndexedFile {
  stamp: FileStamp;
  /** Absent for a file that is not served (its diagnostics say why). */
  skill?: Skill;
  diagnostics: Diagnostic[];
}

/** A row to write: the listing, the findings and, for a served file, the content. */
export interface IndexEntry extends IndexedFile {
  path: string;
  content?: SkillContent;
}

/** A supporting file's digest, by version: what `skills/list` publishes, worked out once per version. */
export interface DigestRow extends FileStamp {
  /** The file's absolute path. */
  path: string;
  /** The skill it belongs to (its SKILL.md's path): rows of skills no load refers to are dropped. */
  owner: string;
  sha256: string;
}

/** A digest row as read back: the file version it describes and its SHA-256. */
export interface StoredDigest extends FileStamp {
  path: string;
  sha256: string;
}

/** Bump when the shape of the listing or of content rows changes. */
const FORMAT = 8;

/**
 * A file modified this recently may be modified again within the file system's timestamp
 * granularity without its stamp changing, so it is not indexed ("racy" entries, as git calls
 * them); it is simply parsed again next time.
 */
export const RACY_WINDOW_MS = 2000;

/**
 * Listing rows per stored chunk: writing the listing then never holds more than one chunk's JSON
 * (~0.6 MB at 1,000 rows) besides what is kept, where one document for 10,000 skills (5.8 MB, and
 * as much again as UTF-8 for SQLite) added ~25 MB to the peak RSS of a cold start's first save.
 */
const LISTING_CHUNK_ROWS = 250;

/** A file version's key in the content and digests tables: path, size, mtime, inode. */
type VersionParams = [path: string, size: number, mtime: number, ino: number];

/** One listing row, as stored: an array keeps the document small. */
type ListingRow = [
  path: string,
  size: number,
  mtimeMs: number,
  ino: number,
  skill: Skill | null,
  diagnostics: Diagnostic[] | null,
];

export class StartupIndex {
  /** The listing: the latest indexed version of each path. */
  private readonly files = new Map<string, IndexedFile>();
  private readonly contentQuery: Statement<{ template: string | null; examples: string | null }, VersionParams>;
  private readonly insertContent: Statement<
    unknown,
    [...VersionParams, template: string | null, examples: string | null]
  >;
  private readonly digestsInRange: Statement<StoredDigest, [from: string, to: string]>;
  private readonly digestByPath: Statement<StoredDigest, [path: string]>;
  private readonly insertDigest: Statement<unknown, [...VersionParams, owner: string, sha256: string]>;
  private listingDirty = false;
  /** Whether this process wrote content rows: only then can some be left unreferenced (see saveListing). */
  private wroteContent = false;

  private constructor(private readonly db: Database) {
    for (const { value } of db.query<{ value: string }, []>("SELECT value FROM listing ORDER BY chunk").iterate()) {
      for (const [path, size, mtimeMs, ino, skill, diagnostics] of JSON.parse(value) as ListingRow[]) {
        this.files.set(path, {
          stamp: { size, mtimeMs, ino },
          ...(skill && { skill }),
          diagnostics: diagnostics ?? [],
        });
      }
    }
    this.contentQuery = db.query(
      "SELECT template, examples FROM content WHERE path = ? AND size = ? AND mtime = ? AND ino = ?",
    );
    this.insertContent = db.query(
      "INSERT OR REPLACE INTO content (path, size, mtime, ino, template, examples) VALUES (?, ?, ?, ?, ?, ?)",
    );
    this.digestsInRange = db.query(
      "SELECT path, size, mtime AS mtimeMs, ino, sha256 FROM digests WHERE path >= ? AND path < ?",
    );
    this.digestByPath = db.query("SELECT path, size, mtime AS mtimeMs, ino, sha256 FROM digests WHERE path = ?");
    this.insertDigest = db.query(
      "INSERT OR REPLACE INTO digests (path, size, mtime, ino, owner, sha256) VALUES (?, ?, ?, ?, ?, ?)",
    );
  }

  /** Opens (or creates) the index at `path`; undefined when it cannot be used, after one retry from scratch. */
  static open(path: string): StartupIndex | undefined {
    for (let attempt = 0; attempt < 2; attempt++) {
      let db: Database | undefined;
      try {
        mkdirSync(dirname(path), { recursive: true });
        db = new Database(path, { create: true, strict: true });
        // A cache: losing the last writes to an OS crash costs a re-parse, never a wrong answer
        // (WAL keeps the file consistent), so no fsync on commit.
        db.exec("PRAGMA busy_timeout = 2000; PRAGMA journal_mode = WAL; PRAGMA synchronous = OFF");
        db.exec(
          "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);" +
            "CREATE TABLE IF NOT EXISTS content (path TEXT NOT NULL, size INTEGER NOT NULL, mtime REAL NOT NULL, ino INTEGER NOT NULL, " +
            "template TEXT, examples TEXT, PRIMARY KEY (path, size, mtime, ino)) WITHOUT ROWID;" +
            "CREATE TABLE IF NOT EXISTS listing (chunk INTEGER PRIMARY KEY, value TEXT NOT NULL);" +
            // One row per file (its latest version hashed): a supporting file's digest is known by version.
            "CREATE TABLE IF NOT EXISTS digests (path TEXT PRIMARY KEY, size INTEGER NOT NULL, mtime REAL NOT NULL, " +
            "ino INTEGER NOT NULL, owner TEXT NOT NULL, sha256 TEXT NOT NULL) WITHOUT ROWID",
        );
        const stamp = db.query<{ value: string }, []>("SELECT value FROM meta WHERE key = 'stamp'").get();
        const expected = `${FORMAT}/${VERSION}`;
        if (stamp?.value !== expected) {
          db.exec("DELETE FROM content; DELETE FROM listing; DELETE FROM digests; DELETE FROM meta");
          db.query("INSERT INTO meta (key, value) VALUES ('stamp', ?)").run(expected);
        }
        return new StartupIndex(db);
      } catch {
        try {
          db?.close();
        } catch {
          // Already unusable.
        }
        // Corrupt or of an unknown shape: start it again (other processes keep their open copy).
        if (attempt === 0) for (const suffix of ["", "-wal", "-shm"]) rmSync(`${path}${suffix}`, { force: true });
      }
    }
    return undefined;
  }

  /** Whether the index has any version of this path (a cold start skips the stat when not). */
  has(path: string): boolean {
    return this.files.has(path);
  }

  /** What the index knows of this exact file version, if anything. */
  lookup(path: string, stamp: FileStamp): IndexedFile | undefined {
    const file = this.files.get(path);
    if (!file) return undefined;
    return sameStamp(file.stamp, stamp) ? file : undefined;
  }

  /** The content stored for a served file version; undefined when the index does not have it. */
  content(path: string, stamp: FileStamp): SkillContent | undefined {
    try {
      const row = this.contentQuery.get(path, stamp.size, stamp.mtimeMs, stamp.ino);
      if (!row) return undefined;
      return {
        ...(row.template !== null && { template: row.template }),
        examples: row.examples ? (JSON.parse(row.examples) as SkillExample[]) : [],
      };
    } catch {
      return undefined;
    }
  }

  /** The digest stored for a file, in whatever version (the caller compares its stamp). */
  storedDigest(path: string): StoredDigest | undefined {
    try {
      return this.digestByPath.get(path) ?? undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * Every digest stored for a file under `folder` (a path ending in a separator), by path: a skill
   * folder's files are always worked out together, and one range read of the primary key costs
   * what a single lookup does, where a query per file was most of a warm start's audit under
   * `audit.layers: all` (14,200 queries at 1,200 folders). Empty when the index cannot answer.
   */
  digestsUnder(folder: string): Map<string, StoredDigest> {
    const found = new Map<string, StoredDigest>();
    // Paths compare as UTF-8 bytes: every path starting with `folder` sorts before `folder` with its
    // last character (an ASCII separator) bumped by one.
    const end = folder.slice(0, -1) + String.fromCharCode(folder.charCodeAt(folder.length - 1) + 1);
    try {
      for (const row of this.digestsInRange.iterate(folder, end)) found.set(row.path, row);
    } catch {
      found.clear();
    }
    return found;
  }

  /** Stores digests (racy versions are left out); false when the index is busy or broken. */
  writeDigests(rows: readonly DigestRow[], now = Date.now()): boolean {
    if (rows.length === 0) return true;
    try {
      this.db.transaction(() => {
        for (const r of rows) {
          if (StartupIndex.indexable(r, now))
            this.insertDigest.run(r.path, r.size, r.mtimeMs, r.ino, r.owner, r.sha256);
        }
      })();
    } catch {
      return false;
    }
    if (rows.length > 0) this.wroteContent = true;
    return true;
  }

  /** Whether a file version may be written now (not racy). */
  static indexable(stamp: FileStamp, now = Date.now()): boolean {
    return now - stamp.mtimeMs >= RACY_WINDOW_MS;
  }

  /**
   * Writes the content of `entries` in one transaction and takes their listing rows (saved by
   * `saveListing`). Returns false when the index is busy or broken; the caller keeps what it has
   * in memory and may try again.
   */
  write(entries: readonly IndexEntry[], now = Date.now()): boolean {
    try {
      this.db.transaction(() => {
        for (const e of entries) {
          if (!StartupIndex.indexable(e.stamp, now) || !e.skill || !e.content) continue;
          const { template, examples } = e.content;
          this.insertContent.run(
            e.path,
            e.stamp.size,
            e.stamp.mtimeMs,
            e.stamp.ino,
            template ?? null,
            examples.length > 0 ? JSON.stringify(examples) : null,
          );
        }
      })();
    } catch {
      return false;
    }
    if (entries.length > 0) this.wroteContent = true;
    for (const e of entries) {
      if (!StartupIndex.indexable(e.stamp, now)) continue;
      this.files.set(e.path, { stamp: e.stamp, ...(e.skill && { skill: e.skill }), diagnostics: e.diagnostics });
      this.listingDirty = true;
    }
    return true;
  }

  /**
   * Keeps only the file versions in `keep` (every version a load still refers to): listing rows
   * of files that are gone, and content of versions nothing serves, are dropped; then the
   * listing is written in one statement.
   */
  saveListing(keep: ReadonlyArray<{ path: string; stamp: FileStamp }>): boolean {
    const kept = new Map<string, FileStamp[]>();
    for (const k of keep) kept.set(k.path, [...(kept.get(k.path) ?? []), k.stamp]);
    for (const path of this.files.keys()) {
      if (!kept.has(path)) {
        this.files.delete(path);
        this.listingDirty = true;
      }
    }
    // Nothing changed since the index was opened (a warm start): no row can have lost its last
    // reference, so the scan of every content row below (~30 ms at 10,000) is skipped. Rows that an
    // earlier process left behind (it died before saving) go with the next save that writes.
    if (!this.listingDirty && !this.wroteContent) return true;
    type Version = FileStamp & { path: string };
    const referenced = (r: Version) => kept.get(r.path)?.some((stamp) => sameStamp(stamp, r)) === true;
    try {
      this.db.transaction(() => {
        // Row by row: 10,000 rows materialised at once were megabytes for a few unreferenced ones.
        const stale: Version[] = [];
        for (const r of this.db.query<Version, []>("SELECT path, size, mtime AS mtimeMs, ino FROM content").iterate()) {
          if (!referenced(r)) stale.push(r);
        }
        const remove = this.db.query<unknown, VersionParams>(
          "DELETE FROM content WHERE path = ? AND size = ? AND mtime = ? AND ino = ?",
        );
        for (const r of stale) remove.run(r.path, r.size, r.mtimeMs, r.ino);
        // Digests of skills no load refers to any more.
        const gone = new Set<string>();
        for (const r of this.db.query<{ owner: string }, []>("SELECT DISTINCT owner FROM digests").iterate())
          if (!kept.has(r.owner)) gone.add(r.owner);
        const removeDigests = this.db.query<unknown, [owner: string]>("DELETE FROM digests WHERE owner = ?");
        for (const owner of gone) removeDigests.run(owner);
        if (!this.listingDirty) return;
        this.db.exec("DELETE FROM listing");
        const insert = this.db.query<unknown, [chunk: number, value: string]>(
          "INSERT INTO listing (chunk, value) VALUES (?, ?)",
        );
        let rows: ListingRow[] = [];
        let chunk = 0;
        for (const [path, f] of this.files) {
          rows.push([
            path,
            f.stamp.size,
            f.stamp.mtimeMs,
            f.stamp.ino,
            f.skill ?? null,
            f.diagnostics.length > 0 ? f.diagnostics : null,
          ]);
          if (rows.length === LISTING_CHUNK_ROWS) {
            insert.run(chunk++, JSON.stringify(rows));
            rows = [];
            // Each chunk's JSON and its UTF-8 copy go before the next is made.
            Bun.gc(false);
          }
        }
        if (rows.length > 0) insert.run(chunk, JSON.stringify(rows));
      })();
    } catch {
      return false;
    }
    this.listingDirty = false;
    this.wroteContent = false;
    return true;
  }

  close(): void {
    try {
      this.db.close();
    } catch {
      // Nothing to release.
    }
  }
}

/**
 * Used by the shipped forms (the compiled binary, an installed package), where parsing code only
 * changes with the version that keys the index; not in a development checkout, where it changes
 * all the time. `SKILL_CENTRAL_CACHE=on|off` overrides.
 */
export function startupIndexEnabled(): boolean {
  const setting = process.env.SKILL_CENTRAL_CACHE;
  if (setting === "off") return false;
  if (setting === "on") return true;
  return Bun.isStandaloneExecutable || import.meta.dir.includes(`${sep}node_modules${sep}`);
}

/** One index per project folder, in skill-central's cache folder (see `cacheRoot`). */
export function startupIndexPath(cwd: string, home = homedir()): string {
  return join(cacheRoot(home), `${projectCacheName(cwd)}.index.sqlite`);
}
