/**
 * What the usage history asks of a store, whichever backend keeps it: the one interface of the
 * SQLite file (usage-sqlite.ts, the default) and the PostgreSQL database (usage-postgres.ts). The
 * recorder (usage-store.ts) writes and prunes through it, `readUsage` reports through it; the
 * schema (usage-schema.ts) and the report's SQL (usage-report.ts) are the backends' shared parts.
 */
import type { SkillUsage, UsageQuery } from "./usage-report.ts";
import type { StoredUse } from "./usage-row.ts";

export interface UsageBackend {
  /** The store as messages name it: a path (home as `~`), or `postgres://user@host:port/db`; never a password. */
  readonly shown: string;
  /**
   * Appends `rows` in one transaction, creating and migrating the store first if need be. A
   * file's write is synchronous and waits at most `waitMs` for another process's lock (the
   * recorder keeps the rows when it throws); a database's is a promise, never awaited by a request.
   */
  write(rows: readonly StoredUse[], waitMs: number): void | Promise<void>;
  /** Deletes the uses older than `before` (ms) and their roll-ups. */
  prune(before: number): void | Promise<void>;
  /** The report for a window, aggregated by the store; rejects with UnreadableStore (or the driver's error). */
  report(query: UsageQuery, until: number): Promise<SkillUsage[]>;
  /** An error of this backend in words, never with a secret. */
  describe(error: unknown): string;
  close(): void | Promise<void>;
}

/** A store that exists but cannot be read (not a database, damaged, newer than this binary): why. */
export class UnreadableStore extends Error {
  override readonly name = "UnreadableStore";
}
