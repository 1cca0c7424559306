/**
 * The usage store's schema and its versions, for both backends (SQLite and PostgreSQL). A store
 * is created on first use by running every migration from nothing, and an older one is taken
 * forward by the migrations after its version, in one transaction, so a fresh store and an
 * upgraded one are made by the same statements. A store newer than this binary is refused: its
 * rows may mean what this version cannot read, and writing old rows into it could corrupt it.
 *
 * Versions:
 * 1. `uses (at, skill, layer, client, caller, outcome, via)`: the file skill-central wrote before
 *    the store had versions (it has no `store_schema` table: a `uses` table alone is version 1).
 * 2. `project` (a hash of the project folder, or the HTTP server's name) and `digest` (of what
 *    was served); outcome `refused` (a call refused before it ran, not a use); and two daily
 *    roll-ups a trigger keeps with every insert, whatever wrote it: `uses_daily` (uses by day,
 *    skill, outcome, client and project) and `callers_daily` (who used a skill, by day, client and
 *    project), so a report over months reads thousands of rows, not millions (usage-report.ts).
 *    An older store's rows are rolled up once, by the migration, before the trigger exists.
 * 3. `admin_log` (docs/governance.md): the governance record, append-only. Each row is one signed
 *    admin action (approve, block, unblock); approvals and blocks in force are read from it, so
 *    there is one record and no second table that could disagree with it. Triggers refuse every
 *    UPDATE and DELETE of it in both backends (a hand-edit must drop them first), and each row
 *    carries the hash of the row before it inside what its key signed (admin-log-record.ts), so
 *    a row edited or deleted behind the store's back is found when the log is read.
 */

export type Dialect = "sqlite" | "postgres";

/** The version this binary writes and reads. */
export const USAGE_SCHEMA_VERSION = 3;

/** Table names are constants: identifiers are never parameters, and never come from a config. */
export const USES_TABLE = "uses";
export const SCHEMA_TABLE = "store_schema";
export const DAILY_TABLE = "uses_daily";
export const CALLERS_TABLE = "callers_daily";
export const ADMIN_LOG_TABLE = "admin_log";
export const DAY_MS = 86_400_000;

interface Migration {
  version: number;
  statements: (dialect: Dialect) => string[];
}

const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    statements: (dialect) => [
      `CREATE TABLE IF NOT EXISTS ${USES_TABLE} (
        at ${dialect === "postgres" ? "BIGINT" : "INTEGER"} NOT NULL,
        skill TEXT NOT NULL,
        layer TEXT NOT NULL,
        client TEXT,
        caller TEXT,
        outcome TEXT NOT NULL,
        via TEXT NOT NULL
      )`,
      `CREATE INDEX IF NOT EXISTS uses_by_time ON ${USES_TABLE} (at)`,
      `CREATE INDEX IF NOT EXISTS uses_by_skill ON ${USES_TABLE} (skill, at)`,
    ],
  },
  {
    version: 2,
    statements: (dialect) => {
      const int = dialect === "postgres" ? "BIGINT" : "INTEGER";
      return [
        `ALTER TABLE ${USES_TABLE} ADD COLUMN project TEXT`,
        `ALTER TABLE ${USES_TABLE} ADD COLUMN digest TEXT`,
        // '' stands for "none" in the roll-ups: a key column may not be NULL there.
        `CREATE TABLE ${DAILY_TABLE} (
          day ${int} NOT NULL, skill TEXT NOT NULL, outcome TEXT NOT NULL, client TEXT NOT NULL, project TEXT NOT NULL,
          n ${int} NOT NULL, last ${int} NOT NULL,
          PRIMARY KEY (day, skill, outcome, client, project)
        )`,
        `CREATE TABLE ${CALLERS_TABLE} (
          day ${int} NOT NULL, skill TEXT NOT NULL, caller TEXT NOT NULL, client TEXT NOT NULL, project TEXT NOT NULL,
          PRIMARY KEY (day, skill, caller, client, project)
        )`,
        ...rollupBackfill(),
        ...rollupTrigger(dialect),
        `CREATE TABLE IF NOT EXISTS ${SCHEMA_TABLE} (version INTEGER NOT NULL)`,
        `INSERT INTO ${SCHEMA_TABLE} (version) VALUES (2)`,
      ];
    },
  },
  {
    version: 3,
    statements: (dialect) => {
      const refuse = "the admin log is append-only: its entries are never changed nor deleted";
      return [
        `CREATE TABLE ${ADMIN_LOG_TABLE} (
          seq ${dialect === "postgres" ? "BIGINT" : "INTEGER"} PRIMARY KEY,
          at ${dialect === "postgres" ? "BIGINT" : "INTEGER"} NOT NULL,
          principal TEXT NOT NULL, fingerprint TEXT NOT NULL, action TEXT NOT NULL,
          skill TEXT NOT NULL, digest TEXT, reason TEXT NOT NULL, files TEXT,
          prev TEXT NOT NULL, signature TEXT NOT NULL
        )`,
        `CREATE INDEX admin_log_by_skill ON ${ADMIN_LOG_TABLE} (skill, seq)`,
        ...(dialect === "sqlite"
          ? [
              `CREATE TRIGGER admin_log_no_update BEFORE UPDATE ON ${ADMIN_LOG_TABLE} BEGIN SELECT RAISE(ABORT, '${refuse}'); END`,
              `CREATE TRIGGER admin_log_no_delete BEFORE DELETE ON ${ADMIN_LOG_TABLE} BEGIN SELECT RAISE(ABORT, '${refuse}'); END`,
            ]
          : [
              `CREATE OR REPLACE FUNCTION admin_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $fn$ BEGIN RAISE EXCEPTION '${refuse}'; END $fn$`,
              `CREATE TRIGGER admin_log_append_only BEFORE UPDATE OR DELETE ON ${ADMIN_LOG_TABLE} FOR EACH ROW EXECUTE FUNCTION admin_log_append_only()`,
              `CREATE TRIGGER admin_log_no_truncate BEFORE TRUNCATE ON ${ADMIN_LOG_TABLE} FOR EACH STATEMENT EXECUTE FUNCTION admin_log_append_only()`,
            ]),
      ];
    },
  },
];

/** The roll-ups made from the rows there are (the migration's; bench/usage-store.ts's after a bulk load). */
export function rollupBackfill(): string[] {
  return [
    `INSERT INTO ${DAILY_TABLE} (day, skill, outcome, client, project, n, last)
      SELECT at / ${DAY_MS}, skill, outcome, COALESCE(client, ''), COALESCE(project, ''), COUNT(*), MAX(at)
      FROM ${USES_TABLE} GROUP BY 1, 2, 3, 4, 5`,
    `INSERT INTO ${CALLERS_TABLE} (day, skill, caller, client, project)
      SELECT DISTINCT at / ${DAY_MS}, skill, caller, COALESCE(client, ''), COALESCE(project, '')
      FROM ${USES_TABLE} WHERE caller IS NOT NULL AND outcome <> 'refused'`,
  ];
}

/** The trigger that keeps the roll-ups with every row inserted into `uses`. */
export function rollupTrigger(dialect: Dialect): string[] {
  const daily = (row: string) =>
    `INSERT INTO ${DAILY_TABLE} (day, skill, outcome, client, project, n, last)
      VALUES (${row}.at / ${DAY_MS}, ${row}.skill, ${row}.outcome, COALESCE(${row}.client, ''), COALESCE(${row}.project, ''), 1, ${row}.at)
      ON CONFLICT (day, skill, outcome, client, project) DO UPDATE SET n = ${DAILY_TABLE}.n + 1, last = ${dialect === "postgres" ? "GREATEST" : "MAX"}(${DAILY_TABLE}.last, excluded.last)`;
  const callers = (row: string) =>
    `INSERT INTO ${CALLERS_TABLE} (day, skill, caller, client, project)
      SELECT ${row}.at / ${DAY_MS}, ${row}.skill, ${row}.caller, COALESCE(${row}.client, ''), COALESCE(${row}.project, '')
      WHERE ${row}.caller IS NOT NULL AND ${row}.outcome <> 'refused'
      ON CONFLICT DO NOTHING`;
  if (dialect === "sqlite")
    return [`CREATE TRIGGER uses_rollup AFTER INSERT ON ${USES_TABLE} BEGIN ${daily("NEW")}; ${callers("NEW")}; END`];
  return [
    `CREATE OR REPLACE FUNCTION uses_rollup() RETURNS trigger LANGUAGE plpgsql AS $fn$ BEGIN ${daily("NEW")}; ${callers("NEW")}; RETURN NULL; END $fn$`,
    `CREATE TRIGGER uses_rollup AFTER INSERT ON ${USES_TABLE} FOR EACH ROW EXECUTE FUNCTION uses_rollup()`,
  ];
}

/**
 * Deletes rows older than `before` (ms) and the roll-ups of the days before it; the day `before`
 * falls in is rolled up again from the rows it keeps, so the roll-ups never count a pruned row.
 */
export function pruneStatements(before: number): { sql: string; params: number[] }[] {
  const day = Math.floor(before / DAY_MS);
  const [dailyFill, callersFill] = rollupBackfill();
  const thatDay = " AND at >= ? AND at < ?";
  const range = [day * DAY_MS, (day + 1) * DAY_MS];
  return [
    { sql: `DELETE FROM ${USES_TABLE} WHERE at < ?`, params: [before] },
    { sql: `DELETE FROM ${DAILY_TABLE} WHERE day <= ?`, params: [day] },
    { sql: `DELETE FROM ${CALLERS_TABLE} WHERE day <= ?`, params: [day] },
    { sql: dailyFill!.replace("FROM uses GROUP BY", `FROM uses WHERE TRUE${thatDay} GROUP BY`), params: range },
    { sql: `${callersFill}${thatDay}`, params: range },
  ];
}

/** The statements that take a store at `version` (0: nothing there) to USAGE_SCHEMA_VERSION; after v2 each updates the version row. */
export function migrationsFrom(version: number, dialect: Dialect): string[] {
  return MIGRATIONS.filter((m) => m.version > version).flatMap((m) => [
    ...m.statements(dialect),
    ...(m.version > 2 ? [`UPDATE ${SCHEMA_TABLE} SET version = ${m.version}`] : []),
  ]);
}

/** A store written by a newer skill-central: refused, never written to nor read as if it were ours. */
export class StoreTooNewError extends Error {
  constructor(shown: string, version: number) {
    super(
      `the usage store ${shown} has schema version ${version}, newer than this skill-central knows (${USAGE_SCHEMA_VERSION}): upgrade skill-central to use it`,
    );
    this.name = "StoreTooNewError";
  }
}

/** What a store's tables say of its version: `store_schema`'s row, else 1 for a `uses` table alone, else 0. */
export function versionOf(hasSchemaTable: boolean, schemaVersion: number | undefined, hasUses: boolean): number {
  if (hasSchemaTable) return schemaVersion ?? 0;
  return hasUses ? 1 : 0;
}
