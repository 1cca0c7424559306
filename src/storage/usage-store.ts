/**
 * The usage history: one row per use of a skill, in the store the config names (store-location.ts):
 * a SQLite file every server process of the user shares (the default; usage-sqlite.ts), or a
 * team's PostgreSQL database that every replica and laptop writes to (usage-postgres.ts). Most use
 * is stdio, one process per IDE window, so a counter in memory dies with its window; a store
 * outlives them all and is what `usage` reads.
 *
 * Nothing here may slow or fail a request:
 * - `record` only appends to an array; rows are written in batches from a timer (one short
 *   transaction per batch, off the request path);
 * - the store is opened on the first batch, never at start, so a session that uses nothing costs
 *   nothing and `store: off` never creates a file nor opens a connection;
 * - a SQLite write never waits on another process's lock while serving (busy timeout 0): a locked
 *   file keeps its rows for the next batch; one locked for longer than LOCKED_TOO_LONG_MS (or that
 *   cannot be opened) means one warning and no more recording in this process;
 * - a PostgreSQL store that is down or slow keeps the rows waiting (one warning) and writes them
 *   when it is back; the writes are promises, never awaited by a request;
 * - rows wait in a bounded buffer (`buffer`, default DEFAULT_BUFFER): past it a use is dropped,
 *   counted (`dropped`, on /metrics) and said in ONE warning;
 * - at close, when the process is leaving, the last batch waits for a lock or the network (bounded).
 *
 * A store that cannot be read (not a database, damaged) reads as empty with the reason, and is
 * never deleted or rewritten: it is the user's file, and may be worth recovering.
 */
import { describeFsError } from "./fs-errors.ts";
import { scrubbed, shownStore, type StoreLocation, storeLocation } from "./store-location.ts";
import { boundedUse, DEFAULT_BUFFER } from "./usage-bounds.ts";
import type { PostgresUsage } from "./usage-postgres.ts";
import type { SkillUsage, UsageQuery } from "./usage-report.ts";
import type { StoredUse } from "./usage-row.ts";
import { StoreTooNewError } from "./usage-schema.ts";
import { isBusy, SqliteUsage } from "./usage-sqlite.ts";
import type { UsageBackend } from "./usage-backend.ts";

export type { SkillUsage } from "./usage-report.ts";
export { NO_PROJECT } from "./usage-report.ts";
export type { StoredUse as SkillUseRow } from "./usage-row.ts";

/** Rows are written this often while a server runs (and at close). */
export const FLUSH_EVERY_MS = 250;
/** A batch that finds the SQLite file locked is kept and tried again; locked this long, recording stops. */
const LOCKED_TOO_LONG_MS = 10_000;
/**
 * At close the last SQLite batch tries this often, each try waiting up to CLOSE_TRY_BUSY_MS for
 * another process's lock and CLOSE_TRY_PAUSE_MS between tries (about 3 s in all). One long busy
 * timeout is not enough: SQLite answers some lock states at once, without waiting (a WAL file
 * being recovered or removed as another process closes, a journal mode being set by a process
 * creating the file), and four servers starting and stopping together lost one server's uses that way.
 */
const CLOSE_TRIES = 25;
const CLOSE_TRY_BUSY_MS = 100;
const CLOSE_TRY_PAUSE_MS = 20;
/** How long the last PostgreSQL batch may take at close: the process's exit deadline bounds it anyway. */
const CLOSE_NETWORK_MS = 1_500;
/** How often a PostgreSQL store that cannot be written is tried again. */
const RETRY_WHILE_DOWN_MS = 1_000;
/** Rows per PostgreSQL statement: a store back after an outage gets its backlog in steps. */
const NETWORK_BATCH = 5_000;
const DAY_MS = 86_400_000;

export interface UsageRecorderOptions {
  /** The store: a location, or a file's path. */
  store: StoreLocation | string;
  /** Rows older than this are deleted (once, when the store is first opened by this process). */
  keepDays: number;
  warn: (message: string) => void;
  /** The store's folder is skill-central's own (the default state folder): kept 0700 even if it exists. */
  privateFolder?: boolean;
  /** Rows waiting at most (default DEFAULT_BUFFER); past it uses are dropped and counted. */
  buffer?: number;
  /** The clock (tests). */
  now?: () => number;
  /** Where the PostgreSQL password is read (tests). */
  env?: Record<string, string | undefined>;
}

/** Records uses into the store in batches; see the module header for what it promises. */
export class UsageRecorder {
  private pending: StoredUse[] = [];
  /** The SQLite store, when the location is one, and whether this process has opened it yet. */
  private readonly file: SqliteUsage | undefined;
  private opened = false;
  /** The PostgreSQL store, when the location is one: its module loaded on the first batch, not at start. */
  private readonly network: (() => Promise<PostgresUsage>) | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** The network write under way. */
  private writing: Promise<void> | undefined;
  /** Recording stopped (the store could not be opened, stayed locked, or is newer than this binary): rows are dropped. */
  private off = false;
  /** When the oldest batch still pending first found the store locked or unreachable. */
  private failingSince: number | undefined;
  private closed = false;
  /** The database's old rows were pruned by this process (on its first write). */
  private pruned = false;
  private droppedCount = 0;
  private readonly now: () => number;
  private readonly location: StoreLocation;
  private readonly bound: number;
  private readonly env: Record<string, string | undefined>;

  constructor(private readonly options: UsageRecorderOptions) {
    this.now = options.now ?? Date.now;
    this.env = options.env ?? process.env;
    this.location = typeof options.store === "string" ? storeLocation(options.store) : options.store;
    this.bound = Math.max(1, options.buffer ?? DEFAULT_BUFFER);
    const location = this.location;
    let opened: Promise<PostgresUsage> | undefined;
    this.network = location.kind === "postgres" ? () => (opened ??= postgresStore(location, this.env)) : undefined;
    this.file = location.kind === "sqlite" ? new SqliteUsage(location.path, options.privateFolder) : undefined;
  }

  /** Whether uses are still being recorded (false once the store failed for good). */
  get recording(): boolean {
    return !this.off && !this.closed;
  }

  /** Uses dropped because the buffer was full (the store down or locked too long). */
  get dropped(): number {
    return this.droppedCount;
  }

  /** Uses waiting to be written. */
  get waiting(): number {
    return this.pending.length;
  }

  private get shown(): string {
    return shownStore(this.location);
  }

  /** Queues one use, its strings bounded (usage-bounds.ts); written within FLUSH_EVERY_MS. */
  record(use: Omit<StoredUse, "at"> & { at?: number }): void {
    if (this.off || this.closed) return;
    if (this.pending.length >= this.bound) {
      if (this.droppedCount === 0)
        this.options.warn(
          `usage: ${this.bound} uses are waiting for the store ${this.shown}; later uses are dropped until it is back (counted in skill_central_usage_dropped_total)`,
        );
      this.droppedCount++;
      return;
    }
    this.pending.push(boundedUse({ ...use, at: use.at ?? this.now() }));
    this.schedule();
  }

  private schedule(): void {
    if (this.timer !== undefined || this.off || this.closed || this.pending.length === 0) return;
    // A database that is down is tried once a second, not four times: no storm of connections.
    const delay = this.network !== undefined && this.failingSince !== undefined ? RETRY_WHILE_DOWN_MS : FLUSH_EVERY_MS;
    this.timer = setTimeout(() => this.flushSoon(), delay);
    this.timer.unref?.();
  }

  private flushSoon(): void {
    this.timer = undefined;
    if (this.network !== undefined) void this.writeNetwork();
    else this.writePending();
    this.schedule();
  }

  /**
   * Writes what is pending now to a SQLite store (the batch timer calls it); a locked store keeps
   * the rows for the next batch, unless it has been locked for LOCKED_TOO_LONG_MS.
   */
  writePending(busyTimeoutMs = 0): void {
    if (this.off || this.pending.length === 0 || this.network !== undefined) return;
    const file = this.open(busyTimeoutMs);
    if (file === undefined) return;
    const rows = this.pending;
    try {
      file.write(rows, busyTimeoutMs);
      this.pending = [];
      this.failingSince = undefined;
    } catch (error) {
      if (!isBusy(error)) {
        this.stop(
          `usage: recording stopped, the store ${this.shownFile} could not be written: ${describeFsError(error)}`,
        );
        return;
      }
      this.failingSince ??= this.now();
      if (this.now() - this.failingSince >= LOCKED_TOO_LONG_MS)
        this.stop(`usage: recording stopped, the store ${this.shownFile} stayed locked by another process`);
    }
  }

  /** The SQLite file's path as the warnings have always named it (in full: the user's own file). */
  private get shownFile(): string {
    return this.location.kind === "sqlite" ? this.location.path : this.shown;
  }

  /** One batch to PostgreSQL, unless one is under way; a store that is down keeps the rows (one warning). */
  private writeNetwork(): Promise<void> {
    if (this.writing !== undefined) return this.writing;
    if (this.off || this.pending.length === 0 || this.network === undefined) return Promise.resolve();
    const open = this.network;
    const batch = this.pending.slice(0, NETWORK_BATCH);
    const firstWrite = this.failingSince === undefined && !this.pruned;
    this.writing = (async () => {
      const network = await open();
      try {
        if (firstWrite) await this.pruneNetwork(network);
        await network.write(batch);
        // Only now are they gone from the buffer: a batch that failed is still at its front.
        this.pending.splice(0, batch.length);
        if (this.failingSince !== undefined)
          this.options.warn(`usage: the store ${this.shown} is back; writing the uses that waited`);
        this.failingSince = undefined;
      } catch (error) {
        if (error instanceof StoreTooNewError) {
          this.stop(`usage: not recording, ${error.message}`);
          return;
        }
        if (this.failingSince === undefined)
          this.options.warn(
            `usage: the store ${this.shown} cannot be written (${network.describe(error)}); uses wait (at most ${this.bound}) and are written when it is back`,
          );
        this.failingSince ??= this.now();
      } finally {
        this.writing = undefined;
      }
    })();
    return this.writing;
  }

  private async pruneNetwork(network: PostgresUsage): Promise<void> {
    await network.prune(this.now() - this.options.keepDays * DAY_MS);
    this.pruned = true;
  }

  private open(busyTimeoutMs: number): SqliteUsage | undefined {
    const file = this.file;
    if (file === undefined) return undefined;
    if (this.opened) return file;
    try {
      file.open(busyTimeoutMs);
      this.opened = true;
    } catch (error) {
      if (isBusy(error)) {
        // Another process is creating or checkpointing the file: try again with the next batch.
        this.failingSince ??= this.now();
        if (this.now() - this.failingSince < LOCKED_TOO_LONG_MS) return undefined;
      }
      this.stop(`usage: not recording, the store ${file.path} cannot be opened: ${file.describe(error)}`);
      return undefined;
    }
    this.prune(file);
    return file;
  }

  /** Rows past `keepDays` are deleted once per process; a locked store just skips it this time. */
  private prune(file: SqliteUsage): void {
    try {
      file.prune(this.now() - this.options.keepDays * DAY_MS);
    } catch {
      // Another process holds the lock: the next process to open the store prunes.
    }
  }

  private stop(message: string): void {
    this.off = true;
    this.pending = [];
    this.options.warn(message);
  }

  /**
   * Writes what is pending and closes the store. A SQLite store is written before this returns
   * (waiting a bounded time for another process's lock); a PostgreSQL store's last batches are
   * the promise's, bounded by CLOSE_NETWORK_MS.
   */
  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.network !== undefined) return this.closeNetwork(this.network);
    for (let tries = 0; tries < CLOSE_TRIES && !this.off && this.pending.length > 0; tries++) {
      if (tries > 0) Bun.sleepSync(CLOSE_TRY_PAUSE_MS);
      this.writePending(CLOSE_TRY_BUSY_MS);
    }
    this.finish("stayed locked by another process");
    this.file?.close();
    return Promise.resolve();
  }

  private finish(why: string): void {
    if (this.pending.length > 0 && !this.off)
      this.options.warn(`usage: ${this.pending.length} use(s) not recorded, the store ${this.shownFile} ${why}`);
    this.pending = [];
    this.closed = true;
  }

  private async closeNetwork(open: () => Promise<PostgresUsage>): Promise<void> {
    const deadline = this.now() + CLOSE_NETWORK_MS;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<"late">((resolve) => {
      timer = setTimeout(() => resolve("late"), CLOSE_NETWORK_MS);
    });
    try {
      while (!this.off && this.pending.length > 0 && this.now() < deadline) {
        const before = this.pending.length;
        if ((await Promise.race([this.writeNetwork(), late])) === "late") break;
        // A batch that failed leaves the buffer as it was: the store is down, stop trying.
        if (this.pending.length >= before) break;
      }
    } finally {
      clearTimeout(timer);
    }
    const used = this.pruned || this.failingSince !== undefined || this.pending.length > 0;
    this.finish("could not be reached");
    if (used) await (await open()).close();
  }
}

/** The PostgreSQL store's module, loaded when one is first used: a server with a file store never loads it. */
async function postgresStore(location: Extract<StoreLocation, { kind: "postgres" }>, env: Env): Promise<PostgresUsage> {
  const { PostgresUsage } = await import("./usage-postgres.ts");
  return new PostgresUsage(location, env);
}

type Env = Record<string, string | undefined>;

/** What `readUsage` found: the uses, and why there are none when the store could not be read. */
export interface UsageRead {
  skills: SkillUsage[];
  /**
   * Set when the store exists but cannot be read (not a database, damaged, a folder, a database
   * that cannot be reached or is newer than this binary): one line naming the store and the
   * reason, never a password. The store is left exactly as it was.
   */
  problem?: string;
}

/** The one line said wherever a store cannot be read (the `usage` command, the board). */
function unreadableStore(location: StoreLocation, reason: string): string {
  return `usage store ${shownStore(location)} cannot be read (${reason}): showing no history`;
}

/**
 * What the store holds for a window, aggregated by the database. An absent SQLite file holds
 * nothing (and is not created); a store that cannot be read holds nothing either, with the
 * reason in `problem`.
 */
export async function readUsage(
  store: StoreLocation | string,
  query: UsageQuery,
  env: Env = process.env,
): Promise<UsageRead> {
  const location = typeof store === "string" ? storeLocation(store) : store;
  const until = query.until ?? Date.now();
  const backend: UsageBackend =
    location.kind === "sqlite" ? new SqliteUsage(location.path) : await postgresStore(location, env);
  try {
    return { skills: await backend.report(query, until) };
  } catch (error) {
    return { skills: [], problem: scrubbed(unreadableStore(location, backend.describe(error)), location, env) };
  } finally {
    await backend.close();
  }
}
