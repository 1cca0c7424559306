/**
 * The usage store in a SQLite file (bun:sqlite, WAL): the default, one file every server process
 * of the user shares. Kept on bun:sqlite rather than Bun.SQL's `sqlite://`: the recorder's promise
 * that a write never waits on another process's lock while serving rests on a busy timeout of 0
 * and an IMMEDIATE transaction that fails at once, and on synchronous writes at exit (the process
 * is leaving; a promise may never be run); bun:sqlite gives both, per statement.
 *
 * The file is created 0600 in a folder created 0700 (private-file.ts) before SQLite opens it, so
 * its `-wal` and `-shm` files get the same mode. Opening migrates it (usage-schema.ts). The
 * `SqliteUsage` class is this backend's side of the store interface (usage-backend.ts).
 */
import { Database } from "bun:sqlite";
import { statSync } from "node:fs";
import { describeFsError } from "./fs-errors.ts";
import { preparePrivateFile } from "./private-file.ts";
import { shownPath } from "./store-location.ts";
import { type GroupRow, reportQueries, type SkillUsage, summarise, type UsageQuery } from "./usage-report.ts";
import {
  migrationsFrom,
  pruneStatements,
  SCHEMA_TABLE,
  StoreTooNewError,
  USAGE_SCHEMA_VERSION,
  USES_TABLE,
  versionOf,
} from "./usage-schema.ts";
import type { StoredUse } from "./usage-row.ts";
import { UnreadableStore, type UsageBackend } from "./usage-backend.ts";

function tableExists(db: Database, name: string): boolean {
  return (
    db
      .query<{ n: number }, [string]>("SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table' AND name = ?")
      .get(name)!.n > 0
  );
}

function sqliteVersion(db: Database): number {
  const hasSchema = tableExists(db, SCHEMA_TABLE);
  const row = hasSchema
    ? db.query<{ version: number }, []>(`SELECT MAX(version) AS version FROM ${SCHEMA_TABLE}`).get()
    : null;
  return versionOf(hasSchema, row?.version ?? undefined, tableExists(db, USES_TABLE));
}

/** Takes the file to this binary's schema version (in one IMMEDIATE transaction), or throws StoreTooNewError. */
export function migrateSqlite(db: Database, path: string): void {
  const version = sqliteVersion(db);
  if (version > USAGE_SCHEMA_VERSION) throw new StoreTooNewError(shownPath(path), version);
  if (version === USAGE_SCHEMA_VERSION) return;
  db.transaction(() => {
    // Another process may have migrated it between the look and the lock.
    const now = sqliteVersion(db);
    if (now > USAGE_SCHEMA_VERSION) throw new StoreTooNewError(shownPath(path), now);
    for (const statement of migrationsFrom(now, "sqlite")) db.run(statement);
  }).immediate();
}

/**
 * Opens (creating) the store file with the settings every process shares, migrated. Throws what
 * SQLite throws, or StoreTooNewError.
 */
export function openUsageDatabase(path: string, busyTimeoutMs: number, privateFolder = false): Database {
  preparePrivateFile(path, { privateFolder });
  const db = new Database(path, { create: true, strict: true });
  try {
    db.run(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
    db.run("PRAGMA journal_mode = WAL");
    db.run("PRAGMA synchronous = NORMAL");
    migrateSqlite(db, path);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/** Deletes rows older than `before` (ms) and the roll-ups' days before it. Throws what SQLite throws (a lock). */
export function pruneSqlite(db: Database, before: number): void {
  db.transaction(() => {
    for (const statement of pruneStatements(before)) db.run(statement.sql, statement.params);
  }).immediate();
}

/** Whether SQLite said another connection holds the lock (try again later), not that the file is bad. */
export function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === "SQLITE_BUSY" || code === "SQLITE_LOCKED" || /database is locked|busy/i.test(String(error));
}

const INSERT = `INSERT INTO ${USES_TABLE} (at, skill, layer, digest, client, caller, project, outcome, via) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`;

/** Appends `rows` in one IMMEDIATE transaction, waiting up to `busyTimeoutMs` for another process's lock. */
export function writeSqliteRows(db: Database, rows: readonly StoredUse[], busyTimeoutMs: number): void {
  db.run(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
  const insert = db.prepare(INSERT);
  db.transaction(() => {
    for (const r of rows)
      insert.run(
        r.at,
        r.skill,
        r.layer,
        r.digest ?? null,
        r.client ?? null,
        r.caller ?? null,
        r.project ?? null,
        r.outcome,
        r.via,
      );
  }).immediate();
}

/** The usage store in a SQLite file, opened (created, migrated) on its first write, never to report. */
export class SqliteUsage implements UsageBackend {
  private db: Database | undefined;

  constructor(
    readonly path: string,
    /** The file's folder is skill-central's own (the default state folder): kept 0700 even if it exists. */
    private readonly privateFolder = false,
  ) {}

  get shown(): string {
    return shownPath(this.path);
  }

  /** The file, opened (created 0600, migrated) once; throws what SQLite throws, or StoreTooNewError. */
  open(busyTimeoutMs: number): Database {
    this.db ??= openUsageDatabase(this.path, busyTimeoutMs, this.privateFolder);
    return this.db;
  }

  write(rows: readonly StoredUse[], waitMs: number): void {
    writeSqliteRows(this.open(waitMs), rows, waitMs);
  }

  /** Prunes an opened file (a file nobody wrote to yet has nothing old). */
  prune(before: number): void {
    if (this.db !== undefined) pruneSqlite(this.db, before);
  }

  async report(query: UsageQuery, until: number): Promise<SkillUsage[]> {
    const read = readSqliteUsage(this.path, query, until);
    if ("reason" in read) throw new UnreadableStore(read.reason);
    return read.skills;
  }

  describe(error: unknown): string {
    return error instanceof StoreTooNewError || error instanceof UnreadableStore
      ? error.message
      : describeFsError(error);
  }

  close(): void {
    try {
      this.db?.close();
    } catch {
      // Closing never fails a process on its way out.
    }
    this.db = undefined;
  }
}

/** What a report of the file found, or why it could not be read (the file left exactly as it was). */
type SqliteRead = { skills: SkillUsage[] } | { skills: SkillUsage[]; reason: string };

/** The report of the file for a window; an absent file holds nothing and is not created. */
function readSqliteUsage(path: string, query: UsageQuery, until: number): SqliteRead {
  try {
    if (statSync(path).isDirectory()) return { skills: [], reason: describeFsError({ code: "EISDIR" }) };
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT"
      ? { skills: [] }
      : { skills: [], reason: describeFsError(error) };
  }
  let db: Database;
  try {
    // Read-write without create: a WAL store opened read-only fails where its -shm file is missing.
    db = new Database(path, { readwrite: true, create: false, strict: true });
  } catch (error) {
    return { skills: [], reason: describeFsError(error) };
  }
  try {
    db.run("PRAGMA busy_timeout = 5000");
    // An empty file (a store being created) has no table yet: it holds nothing, and is left alone.
    if (!tableExists(db, USES_TABLE)) return { skills: [] };
    migrateSqlite(db, path);
    const q = reportQueries(query, until);
    const all = <Row>(r: { sql: string; params: (string | number)[] }) =>
      db.query<Row, (string | number)[]>(r.sql).all(...r.params);
    const bucketCount = Math.max(1, query.buckets ?? 1);
    return {
      skills: summarise(
        q.groups.flatMap((g) => all<GroupRow>(g)),
        all<{ skill: string; n: number }>(q.callers),
        q.buckets.flatMap((b) => all<{ skill: string; b: number; n: number }>(b)),
        bucketCount,
      ),
    };
  } catch (error) {
    if (error instanceof StoreTooNewError) return { skills: [], reason: error.message };
    return { skills: [], reason: describeFsError(error) };
  } finally {
    db.close();
  }
}
