/**
 * The usage history: one row per use of a skill, in a SQLite file (bun:sqlite, WAL) that every
 * server process of the user shares. Most use is stdio, one process per IDE window, so a counter
 * in memory dies with its window; a shared file outlives them all and is what `usage` reads.
 *
 * Nothing here may slow or fail a request:
 * - `record` only appends to an array; rows are written in batches from a timer (one short
 *   transaction per batch, off the request path);
 * - the file is opened on the first batch, never at start, so a session that uses nothing costs
 *   nothing and `store: off` never creates a file;
 * - writes never wait on another process's lock while serving (busy timeout 0): a locked store
 *   keeps its rows for the next batch, and one locked for longer than LOCKED_TOO_LONG_MS (or
 *   that cannot be opened) means one warning and no more recording in this process;
 * - only at close, when the process is leaving, does a final batch wait for a lock (bounded).
 *
 * A row holds when, which skill (id and layer), which client, which caller and the outcome; never
 * argument values or rendered text, and no string longer than usage-bounds.ts allows.
 *
 * The store is the user's alone: it is created 0600 in a folder created 0700 (private-file.ts).
 * A store that cannot be read (not a database, damaged) reads as empty with the reason, and is
 * never deleted or rewritten: it is the user's file, and may be worth recovering.
 */
import { Database, type Statement } from "bun:sqlite";
import { homedir } from "node:os";
import { sep } from "node:path";
import { statSync } from "node:fs";
import { describeFsError } from "./fs-errors.ts";
import { preparePrivateFile } from "./private-file.ts";
import { boundedUse } from "./usage-bounds.ts";

/** How a use ended: answered, failed, or the person declined the form that asked for its arguments. */
export type UseOutcome = "ok" | "error" | "declined";

/** One use of a skill, as recorded. */
export interface SkillUseRow {
  /** Milliseconds since the epoch. */
  at: number;
  skill: string;
  layer: string;
  /** The client's `clientInfo.name`, when it gave one. */
  client?: string;
  /** Over HTTP, who signed in (token label or OAuth subject); stdio has none. */
  caller?: string;
  outcome: UseOutcome;
  /** The request that used it (`prompts/get`, `tools/call`, `load_skill`, …). */
  via: string;
}

/** Rows are written this often while a server runs (and at close). */
export const FLUSH_EVERY_MS = 250;
/** A batch that finds the store locked is kept and tried again; locked this long, recording stops. */
const LOCKED_TOO_LONG_MS = 10_000;
/**
 * At close the last batch tries this often, each try waiting up to CLOSE_TRY_BUSY_MS for another
 * process's lock and CLOSE_TRY_PAUSE_MS between tries (about 3 s in all). One long busy timeout is
 * not enough: SQLite answers some lock states at once, without waiting (a WAL file being
 * recovered or removed as another process closes, a journal mode being set by a process creating
 * the file), and four servers starting and stopping together lost one server's uses that way.
 */
const CLOSE_TRIES = 25;
const CLOSE_TRY_BUSY_MS = 100;
const CLOSE_TRY_PAUSE_MS = 20;
/** Rows kept in memory at most while the store is locked: a bound, should the lock never lift. */
const MAX_PENDING = 50_000;
const DAY_MS = 86_400_000;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS uses (
  at INTEGER NOT NULL,
  skill TEXT NOT NULL,
  layer TEXT NOT NULL,
  client TEXT,
  caller TEXT,
  outcome TEXT NOT NULL,
  via TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS uses_by_time ON uses (at);
CREATE INDEX IF NOT EXISTS uses_by_skill ON uses (skill, at);
`;

/**
 * Opens (creating) the store file with the settings every process shares. Throws what SQLite
 * throws. The file exists, 0600, before SQLite opens it: SQLite gives its `-wal` and `-shm` files
 * the database file's mode, so no byte of the history is ever readable by another user.
 */
export function openUsageDatabase(path: string, busyTimeoutMs: number, privateFolder = false): Database {
  preparePrivateFile(path, { privateFolder });
  const db = new Database(path, { create: true, strict: true });
  try {
    db.run(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
    db.run("PRAGMA journal_mode = WAL");
    db.run("PRAGMA synchronous = NORMAL");
    db.exec(SCHEMA);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === "SQLITE_BUSY" || code === "SQLITE_LOCKED" || /database is locked|busy/i.test(String(error));
}

export interface UsageRecorderOptions {
  /** The store file. */
  path: string;
  /** Rows older than this are deleted (once, when the store is first opened by this process). */
  keepDays: number;
  warn: (message: string) => void;
  /** The store's folder is skill-central's own (the default state folder): kept 0700 even if it exists. */
  privateFolder?: boolean;
  /** The clock (tests). */
  now?: () => number;
}

/** Records uses into the store in batches; see the module header for what it promises. */
export class UsageRecorder {
  private pending: SkillUseRow[] = [];
  private db: Database | undefined;
  private insert: Statement | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** Recording stopped (the store could not be opened, or stayed locked): rows are dropped. */
  private off = false;
  /** When the oldest batch still pending first found the store locked. */
  private lockedSince: number | undefined;
  private closed = false;
  private readonly now: () => number;

  constructor(private readonly options: UsageRecorderOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Whether uses are still being recorded (false once the store failed). */
  get recording(): boolean {
    return !this.off && !this.closed;
  }

  /** Queues one use, its strings bounded (usage-bounds.ts); written within FLUSH_EVERY_MS. */
  record(use: Omit<SkillUseRow, "at"> & { at?: number }): void {
    if (this.off || this.closed) return;
    if (this.pending.length >= MAX_PENDING) return;
    this.pending.push(boundedUse({ ...use, at: use.at ?? this.now() }));
    if (this.timer === undefined) {
      this.timer = setTimeout(() => this.flushSoon(), FLUSH_EVERY_MS);
      this.timer.unref?.();
    }
  }

  private flushSoon(): void {
    this.timer = undefined;
    this.writePending();
    if (this.pending.length > 0 && !this.off && !this.closed) {
      this.timer = setTimeout(() => this.flushSoon(), FLUSH_EVERY_MS);
      this.timer.unref?.();
    }
  }

  /**
   * Writes what is pending now (the batch timer calls it); a locked store keeps the rows for the
   * next batch, unless it has been locked for LOCKED_TOO_LONG_MS.
   */
  writePending(busyTimeoutMs = 0): void {
    if (this.off || this.pending.length === 0) return;
    const db = this.open(busyTimeoutMs);
    if (db === undefined) return;
    const rows = this.pending;
    try {
      db.run(`PRAGMA busy_timeout = ${busyTimeoutMs}`);
      db.transaction(() => {
        for (const r of rows)
          this.insert!.run(r.at, r.skill, r.layer, r.client ?? null, r.caller ?? null, r.outcome, r.via);
      }).immediate();
      this.pending = [];
      this.lockedSince = undefined;
    } catch (error) {
      if (!isBusy(error)) {
        this.stop(
          `usage: recording stopped, the store ${this.options.path} could not be written: ${describeFsError(error)}`,
        );
        return;
      }
      this.lockedSince ??= this.now();
      if (this.now() - this.lockedSince >= LOCKED_TOO_LONG_MS)
        this.stop(`usage: recording stopped, the store ${this.options.path} stayed locked by another process`);
    }
  }

  private open(busyTimeoutMs: number): Database | undefined {
    if (this.db !== undefined) return this.db;
    try {
      const db = openUsageDatabase(this.options.path, busyTimeoutMs, this.options.privateFolder);
      this.insert = db.prepare(
        "INSERT INTO uses (at, skill, layer, client, caller, outcome, via) VALUES (?, ?, ?, ?, ?, ?, ?)",
      );
      this.db = db;
    } catch (error) {
      if (isBusy(error)) {
        // Another process is creating or checkpointing the file: try again with the next batch.
        this.lockedSince ??= this.now();
        if (this.now() - this.lockedSince < LOCKED_TOO_LONG_MS) return undefined;
      }
      this.stop(`usage: not recording, the store ${this.options.path} cannot be opened: ${describeFsError(error)}`);
      return undefined;
    }
    this.prune();
    return this.db;
  }

  /** Rows past `keepDays` are deleted once per process; a locked store just skips it this time. */
  private prune(): void {
    try {
      this.db?.run("DELETE FROM uses WHERE at < ?", [this.now() - this.options.keepDays * DAY_MS]);
    } catch {
      // Another process holds the lock: the next process to open the store prunes.
    }
  }

  private stop(message: string): void {
    this.off = true;
    this.pending = [];
    this.options.warn(message);
  }

  /** Writes what is pending (waiting a bounded time for another process's lock) and closes the file. */
  close(): void {
    if (this.closed) return;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    for (let tries = 0; tries < CLOSE_TRIES && !this.off && this.pending.length > 0; tries++) {
      if (tries > 0) Bun.sleepSync(CLOSE_TRY_PAUSE_MS);
      this.writePending(CLOSE_TRY_BUSY_MS);
    }
    if (this.pending.length > 0 && !this.off)
      this.options.warn(
        `usage: ${this.pending.length} use(s) not recorded, the store ${this.options.path} stayed locked by another process`,
      );
    this.pending = [];
    this.closed = true;
    try {
      this.db?.close();
    } catch {
      // Closing never fails a process on its way out.
    }
    this.db = undefined;
  }
}

/** Per skill: its uses in a window. */
export interface SkillUsage {
  skill: string;
  uses: number;
  /** Milliseconds since the epoch. */
  lastUsed: number;
  /** Uses by the client's name ("unknown" when it gave none). */
  clients: Record<string, number>;
  /** Uses by outcome. */
  outcomes: Partial<Record<UseOutcome, number>>;
  /** Uses per bucket of the window, oldest first (for a sparkline). */
  buckets: number[];
}

export interface UsageQuery {
  /** Milliseconds since the epoch: uses at or after it. */
  since: number;
  /** Up to this time (defaults to now). */
  until?: number;
  /** Only this skill. */
  skill?: string;
  /** How many buckets the window is cut into. */
  buckets?: number;
}

/** What `readUsage` found: the uses, and why there are none when the store could not be read. */
export interface UsageRead {
  skills: SkillUsage[];
  /**
   * Set when the store exists but cannot be read (not a database, damaged, a folder): one line
   * naming the file and the reason. The file is left exactly as it was.
   */
  problem?: string;
}

/** The store's path as people read it: the home folder as `~`. */
function shownPath(path: string, home = homedir()): string {
  return home !== "" && path.startsWith(`${home}${sep}`) ? `~${path.slice(home.length)}` : path;
}

/** The one line said wherever a store cannot be read (the `usage` command, the board). */
function unreadableStore(path: string, reason: string): string {
  return `usage store ${shownPath(path)} cannot be read (${reason}): showing no history`;
}

/**
 * What the store holds for a window. An absent store holds nothing (and is not created); one
 * that cannot be read holds nothing either, with the reason in `problem`.
 */
export function readUsage(path: string, query: UsageQuery): UsageRead {
  const until = query.until ?? Date.now();
  const bucketCount = Math.max(1, query.buckets ?? 1);
  const width = Math.max(1, (until - query.since) / bucketCount);
  const unreadable = (reason: string): UsageRead => ({ skills: [], problem: unreadableStore(path, reason) });
  try {
    if (statSync(path).isDirectory()) return unreadable(describeFsError({ code: "EISDIR" }));
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT" ? { skills: [] } : unreadable(describeFsError(error));
  }
  let db: Database;
  try {
    // Read-write without create: a WAL store opened read-only fails where its -shm file is missing.
    db = new Database(path, { readwrite: true, create: false, strict: true });
  } catch (error) {
    return unreadable(describeFsError(error));
  }
  try {
    db.run("PRAGMA busy_timeout = 5000");
    const where = query.skill === undefined ? "at >= ? AND at <= ?" : "at >= ? AND at <= ? AND skill = ?";
    const params: (number | string)[] =
      query.skill === undefined ? [query.since, until] : [query.since, until, query.skill];
    const rows = db
      .query<{ at: number; skill: string; client: string | null; outcome: UseOutcome }, (number | string)[]>(
        `SELECT at, skill, client, outcome FROM uses WHERE ${where}`,
      )
      .all(...params);
    const bySkill = new Map<string, SkillUsage>();
    for (const row of rows) {
      let usage = bySkill.get(row.skill);
      if (usage === undefined) {
        usage = {
          skill: row.skill,
          uses: 0,
          lastUsed: 0,
          clients: {},
          outcomes: {},
          buckets: new Array(bucketCount).fill(0),
        };
        bySkill.set(row.skill, usage);
      }
      usage.uses++;
      usage.lastUsed = Math.max(usage.lastUsed, row.at);
      const client = row.client ?? "unknown";
      usage.clients[client] = (usage.clients[client] ?? 0) + 1;
      usage.outcomes[row.outcome] = (usage.outcomes[row.outcome] ?? 0) + 1;
      const bucket = Math.min(bucketCount - 1, Math.floor((row.at - query.since) / width));
      usage.buckets[bucket] = (usage.buckets[bucket] ?? 0) + 1;
    }
    return { skills: [...bySkill.values()].sort((a, b) => b.uses - a.uses || a.skill.localeCompare(b.skill)) };
  } catch (error) {
    // A store being created (an empty file, no table yet) holds nothing yet; anything else is a
    // file SQLite cannot read: not a database, damaged, locked for too long.
    if (/no such table/i.test(String(error))) return { skills: [] };
    return unreadable(describeFsError(error));
  } finally {
    db.close();
  }
}
