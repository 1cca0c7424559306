/**
 * The admin log in the store (docs/governance.md): appended to by `approve`, `block` and
 * `unblock`, read by `log` and by the servers that obey it, in the same SQLite file or
 * PostgreSQL database as the usage history (schema version 3, usage-schema.ts). Append is the
 * only write: no function here, nor anywhere, updates or deletes an entry, and the schema's
 * triggers refuse it. The store is opened only by these calls, never at start.
 */
import { Database } from "bun:sqlite";
import { statSync } from "node:fs";
import { type AdminDraft, type AdminEntry, CHAIN_START, chainHash, signEntry } from "./admin-log-record.ts";
import { adminRow } from "./admin-log-row.ts";
import type { SshPrivateKey } from "./sshsig.ts";
import type { StoreLocation } from "./store-location.ts";
import { migrateSqlite, openUsageDatabase } from "./usage-sqlite.ts";
import { PostgresUsage } from "./usage-postgres.ts";
import { ADMIN_LOG_TABLE } from "./usage-schema.ts";

type Env = Record<string, string | undefined>;

/** How long an admin action waits for another process's lock on the file. */
const WAIT_MS = 5_000;

/** Signs `draft` with `key` as the next entry of the log and appends it; the entry as stored. */
export async function appendAdminEntry(
  location: StoreLocation,
  draft: AdminDraft,
  key: SshPrivateKey,
  env: Env = process.env,
): Promise<AdminEntry> {
  const make = (seq: number, prev: string) => signEntry(draft, seq, prev, key);
  if (location.kind === "postgres") {
    const store = new PostgresUsage(location, env);
    try {
      return await store.appendAdmin(make);
    } finally {
      await store.close();
    }
  }
  const db = openUsageDatabase(location.path, WAIT_MS);
  try {
    return db
      .transaction(() => {
        const last = db.query(`SELECT * FROM ${ADMIN_LOG_TABLE} ORDER BY seq DESC LIMIT 1`).get() as Record<
          string,
          unknown
        > | null;
        const entry = make(last ? Number(last.seq) + 1 : 1, last ? chainHash(adminRow(last)) : CHAIN_START);
        db.run(
          `INSERT INTO ${ADMIN_LOG_TABLE} (seq, at, principal, fingerprint, action, skill, digest, reason, files, prev, signature) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          [
            entry.seq,
            entry.at,
            entry.principal,
            entry.fingerprint,
            entry.action,
            entry.skill,
            entry.digest ?? null,
            entry.reason,
            entry.files === undefined ? null : JSON.stringify(entry.files),
            entry.prev,
            entry.signature,
          ],
        );
        return entry;
      })
      .immediate();
  } finally {
    db.close();
  }
}

/** The whole log, oldest first; a store file that does not exist holds none (and is not created). */
export async function readAdminLog(location: StoreLocation, env: Env = process.env): Promise<AdminEntry[]> {
  if (location.kind === "postgres") {
    const store = new PostgresUsage(location, env);
    try {
      return await store.readAdmin();
    } finally {
      await store.close();
    }
  }
  try {
    statSync(location.path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  const db = new Database(location.path, { readwrite: true, create: false, strict: true });
  try {
    db.run(`PRAGMA busy_timeout = ${WAIT_MS}`);
    migrateSqlite(db, location.path);
    return (db.query(`SELECT * FROM ${ADMIN_LOG_TABLE} ORDER BY seq`).all() as Record<string, unknown>[]).map(adminRow);
  } finally {
    db.close();
  }
}

/**
 * The newest entry's sequence number, asked again and again (every second or two, off the
 * request path) by a server that obeys the log: one cheap query on a connection kept open.
 * A store file that does not exist yet, or has no log yet, has none (0), and is not created.
 */
export class AdminLogProbe {
  private db: Database | undefined;
  private pg: PostgresUsage | undefined;

  constructor(
    private readonly location: StoreLocation,
    private readonly env: Env = process.env,
  ) {}

  async newest(): Promise<number> {
    if (this.location.kind === "postgres") {
      this.pg ??= new PostgresUsage(this.location, this.env);
      return await this.pg.adminNewest();
    }
    if (this.db === undefined) {
      try {
        statSync(this.location.path);
      } catch {
        return 0;
      }
      this.db = new Database(this.location.path, { readwrite: true, create: false, strict: true });
    }
    try {
      const row = this.db.query(`SELECT MAX(seq) AS n FROM ${ADMIN_LOG_TABLE}`).get() as { n: number | null } | null;
      return row?.n ?? 0;
    } catch (error) {
      // A store of schema version 2 (no log yet) holds no entry; anything else is a failure to report.
      if (/no such table/.test(String(error))) return 0;
      throw error;
    }
  }

  async close(): Promise<void> {
    this.db?.close();
    this.db = undefined;
    await this.pg?.close();
    this.pg = undefined;
  }
}
