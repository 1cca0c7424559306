/**
 * The usage store in PostgreSQL, through Bun's own client (`Bun.SQL`): one store for a team's
 * replicas and laptops. The connection is made on the first write or report, never at start; the
 * schema is migrated once per process, under an advisory lock so replicas starting together
 * migrate it once. Values are always parameters; table names are constants (usage-schema.ts).
 *
 * The password comes from the environment (store-location.ts) and every message this module
 * gives is scrubbed of it and of the URL's user-info: a driver's error may repeat either.
 */
import { SQL } from "bun";
import { scrubbed, shownStore, type StoreLocation } from "./store-location.ts";
import { type GroupRow, reportQueries, type SkillUsage, summarise, type UsageQuery } from "./usage-report.ts";
import type { StoredUse } from "./usage-row.ts";
import type { UsageBackend } from "./usage-backend.ts";
import { type AdminEntry, CHAIN_START, chainHash } from "./admin-log-record.ts";
import { adminRow } from "./admin-log-row.ts";
import {
  migrationsFrom,
  pruneStatements,
  ADMIN_LOG_TABLE,
  SCHEMA_TABLE,
  StoreTooNewError,
  USAGE_SCHEMA_VERSION,
  USES_TABLE,
  versionOf,
} from "./usage-schema.ts";

type PostgresLocation = Extract<StoreLocation, { kind: "postgres" }>;
type Env = Record<string, string | undefined>;

/** Any constant of our own: the lock replicas take to migrate one at a time. */
const MIGRATION_LOCK = 4_911_049;
/** The lock an admin action takes to append to the log's chain. */
const ADMIN_LOCK = 4_911_050;
/** How long one write may take in the database before it is ended (and its rows tried again). */
const STATEMENT_TIMEOUT_MS = 15_000;
/** Seconds to wait for a connection: a store that is down is found out within it, off the request path. */
const CONNECT_TIMEOUT_S = 5;

/** `?` placeholders (the shared report SQL) as PostgreSQL's `$1`, `$2`, … */
function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

export class PostgresUsage implements UsageBackend {
  private sql: SQL | undefined;
  private migrated = false;

  constructor(
    private readonly location: PostgresLocation,
    private readonly env: Env = process.env,
  ) {}

  /** The store as messages name it. */
  get shown(): string {
    return shownStore(this.location);
  }

  /** `error` in words, never with the password or the URL's secrets. */
  describe(error: unknown): string {
    if (error instanceof StoreTooNewError) return error.message;
    const raw = error instanceof Error ? error.message : String(error);
    const code =
      (error as { errno?: unknown; code?: unknown } | null)?.errno ?? (error as { code?: unknown } | null)?.code;
    return scrubbed(
      typeof code === "string" && !raw.includes(code) ? `${raw} (${code})` : raw,
      this.location,
      this.env,
    );
  }

  private client(): SQL {
    if (this.sql === undefined) {
      const password = this.env[this.location.passwordEnv];
      this.sql = new SQL({
        url: this.location.url,
        ...(password !== undefined && password !== "" && { password }),
        max: 4,
        connectionTimeout: CONNECT_TIMEOUT_S,
        idleTimeout: 60,
      });
    }
    return this.sql;
  }

  /** Migrates the store once per process (StoreTooNewError when it is newer than this binary). */
  private async ready(): Promise<SQL> {
    const sql = this.client();
    if (this.migrated) return sql;
    await sql.begin(async (tx) => {
      await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`;
      const [found] = await tx.unsafe(
        `SELECT to_regclass('${SCHEMA_TABLE}') IS NOT NULL AS s, to_regclass('${USES_TABLE}') IS NOT NULL AS u`,
      );
      let schemaVersion: number | undefined;
      if (found.s) {
        const [row] = await tx.unsafe(`SELECT MAX(version) AS v FROM ${SCHEMA_TABLE}`);
        schemaVersion = row?.v === null || row?.v === undefined ? undefined : Number(row.v);
      }
      const version = versionOf(Boolean(found.s), schemaVersion, Boolean(found.u));
      if (version > USAGE_SCHEMA_VERSION) throw new StoreTooNewError(this.shown, version);
      for (const statement of migrationsFrom(version, "postgres")) await tx.unsafe(statement);
    });
    this.migrated = true;
    return sql;
  }

  /** Appends `rows` in one statement (one transaction). */
  async write(rows: readonly StoredUse[]): Promise<void> {
    if (rows.length === 0) return;
    const sql = await this.ready();
    const values = rows.map((r) => ({
      at: r.at,
      skill: r.skill,
      layer: r.layer,
      digest: r.digest ?? null,
      client: r.client ?? null,
      caller: r.caller ?? null,
      project: r.project ?? null,
      outcome: r.outcome,
      via: r.via,
    }));
    // A store that is slow, not down (a lock held, a disk stalled) ends the statement and keeps the
    // rows for the next try: a write that never ends would hold every later batch behind it.
    await sql.begin(async (tx) => {
      await tx.unsafe(`SET LOCAL statement_timeout = ${STATEMENT_TIMEOUT_MS}`);
      await tx`INSERT INTO uses ${tx(values)}`;
    });
  }

  /** Deletes rows older than `before`. */
  async prune(before: number): Promise<void> {
    const sql = await this.ready();
    // Inserts wait the moment it takes: a day rolled up again must not miss nor double a row.
    await sql.begin(async (tx) => {
      await tx.unsafe(`SET LOCAL statement_timeout = ${STATEMENT_TIMEOUT_MS}`);
      await tx.unsafe(`LOCK TABLE ${USES_TABLE} IN SHARE ROW EXCLUSIVE MODE`);
      for (const statement of pruneStatements(before)) await tx.unsafe(numbered(statement.sql), statement.params);
    });
  }

  /** The report for a window, aggregated by the server. */
  async report(query: UsageQuery, until: number): Promise<SkillUsage[]> {
    const sql = await this.ready();
    const q = reportQueries(query, until);
    const run = async <Row>(r: { sql: string; params: (string | number)[] }) =>
      (await sql.unsafe(numbered(r.sql), r.params)) as Row[];
    const [groups, callers, buckets] = await Promise.all([
      Promise.all(q.groups.map((g) => run<GroupRow>(g))),
      run<{ skill: string; n: number }>(q.callers),
      Promise.all(q.buckets.map((b) => run<{ skill: string; b: number; n: number }>(b))),
    ]);
    return summarise(groups.flat(), callers, buckets.flat(), Math.max(1, query.buckets ?? 1));
  }

  /**
   * Appends the entry `make` signs after the newest one, under a lock so two admins acting at
   * once chain one after the other, never both after the same entry.
   */
  async appendAdmin(make: (seq: number, prev: string) => AdminEntry): Promise<AdminEntry> {
    const sql = await this.ready();
    return await sql.begin(async (tx) => {
      await tx`SELECT pg_advisory_xact_lock(${ADMIN_LOCK})`;
      const [last] = await tx.unsafe(`SELECT * FROM ${ADMIN_LOG_TABLE} ORDER BY seq DESC LIMIT 1`);
      const entry = make(last ? Number(last.seq) + 1 : 1, last ? chainHash(adminRow(last)) : CHAIN_START);
      const files = entry.files === undefined ? null : JSON.stringify(entry.files);
      await tx`INSERT INTO admin_log ${tx({ ...entry, digest: entry.digest ?? null, files })}`;
      return entry;
    });
  }

  /** The newest entry's sequence number (0: none): what the servers poll. */
  async adminNewest(): Promise<number> {
    const sql = await this.ready();
    const [row] = await sql.unsafe(`SELECT MAX(seq) AS n FROM ${ADMIN_LOG_TABLE}`);
    return Number(row?.n ?? 0);
  }

  /** The whole admin log, oldest first. */
  async readAdmin(): Promise<AdminEntry[]> {
    const sql = await this.ready();
    return ((await sql.unsafe(`SELECT * FROM ${ADMIN_LOG_TABLE} ORDER BY seq`)) as Record<string, unknown>[]).map(
      adminRow,
    );
  }

  async close(): Promise<void> {
    const sql = this.sql;
    this.sql = undefined;
    this.migrated = false;
    await sql?.close({ timeout: 1 }).catch(() => {});
  }
}
