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
 *    was served); outcome `refused` (a call refused before it ran, not a use).
 */

export type Dialect = "sqlite" | "postgres";

/** The version this binary writes and reads. */
export const USAGE_SCHEMA_VERSION = 2;

/** Table names are constants: identifiers are never parameters, and never come from a config. */
export const USES_TABLE = "uses";
export const SCHEMA_TABLE = "store_schema";

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
    statements: () => [
      `ALTER TABLE ${USES_TABLE} ADD COLUMN project TEXT`,
      `ALTER TABLE ${USES_TABLE} ADD COLUMN digest TEXT`,
      `CREATE INDEX IF NOT EXISTS uses_by_project ON ${USES_TABLE} (project, at)`,
      `CREATE TABLE IF NOT EXISTS ${SCHEMA_TABLE} (version INTEGER NOT NULL)`,
      `INSERT INTO ${SCHEMA_TABLE} (version) VALUES (2)`,
    ],
  },
];

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
