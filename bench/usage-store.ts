#!/usr/bin/env bun
/**
 * How long `usage`'s report takes over a big usage history, on both store backends: ROWS uses
 * (default 10 million) over 180 days, 200 skills, 4 clients, 50 callers, 20 projects, 2% refused,
 * written straight by SQL (a recursive CTE in SQLite, generate_series in PostgreSQL) into a store
 * the store itself created, its roll-up trigger set aside for the bulk load and the roll-ups then
 * built from the rows by the migration's own statements (timed: what migrating a store of that
 * size costs), then the report `usage` runs (readUsage: the database's GROUP BY queries) timed for
 * the default 30-day window with its 30-bucket sparkline, the whole 180 days, and one skill. PostgreSQL is a
 * throwaway cluster (test/helpers/postgres.ts) unless PG_URL names one (password in PGPASSWORD).
 *
 *   bun bench/usage-store.ts [rows]          # not part of `bun run bench`: it takes minutes
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SQL } from "bun";
import { openUsageDatabase } from "../src/storage/usage-sqlite.ts";
import { rollupBackfill, rollupTrigger } from "../src/storage/usage-schema.ts";
import { readUsage } from "../src/storage/usage-store.ts";
import { startPostgres } from "../test/helpers/postgres.ts";

const ROWS = Number(process.argv[2] ?? 10_000_000);
const DAY = 86_400_000;
const NOW = Date.UTC(2026, 11, 6);
const START = NOW - 180 * DAY;
const STEP = Math.max(1, Math.floor((180 * DAY) / ROWS));
const RUNS = 3;

/** The generated row `i`, as SQL over an integer `i` (the same in both dialects). */
const ROW_SQL = `${START} + i * ${STEP}, 'skill-' || (i % 200), 'team', 'sha256:' || (i % 200),
  CASE i % 4 WHEN 0 THEN 'claude-code' WHEN 1 THEN 'cursor-vscode' WHEN 2 THEN 'codex' ELSE 'zed' END,
  'user-' || (i % 50), 'dir:' || (i % 20),
  CASE WHEN i % 50 = 0 THEN 'refused' WHEN i % 20 = 0 THEN 'error' ELSE 'ok' END, 'tools/call'`;
const COLUMNS = "(at, skill, layer, digest, client, caller, project, outcome, via)";

/** Runs `statements` timed: the roll-ups built from the rows, as a migration builds them. */
async function rollups(run: (sql: string) => unknown, dialect: "sqlite" | "postgres"): Promise<string> {
  const t = performance.now();
  for (const statement of [...rollupBackfill(), ...rollupTrigger(dialect)]) await run(statement);
  return `roll-ups built in ${((performance.now() - t) / 1000).toFixed(1)} s`;
}

const QUERIES = [
  { name: "30 days, 30 buckets (usage's default)", query: { since: NOW - 30 * DAY, until: NOW, buckets: 30 } },
  { name: "180 days, no buckets", query: { since: START, until: NOW } },
  { name: "30 days, one skill", query: { since: NOW - 30 * DAY, until: NOW, skill: "skill-7", buckets: 30 } },
];

async function time(store: string, env: Record<string, string | undefined>): Promise<string[]> {
  const lines: string[] = [];
  for (const { name, query } of QUERIES) {
    const ms: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const t = performance.now();
      const read = await readUsage(store, query, env);
      ms.push(performance.now() - t);
      if (read.problem !== undefined || read.skills.length === 0) throw new Error(read.problem ?? "no uses read");
    }
    ms.sort((a, b) => a - b);
    lines.push(`| ${name} | ${ms[Math.floor(RUNS / 2)]!.toFixed(0)} ms | ${ms[0]!.toFixed(0)} ms |`);
  }
  return lines;
}

const dir = mkdtempSync(join(tmpdir(), "usage-bench-"));
try {
  console.log(`# usage report over ${ROWS.toLocaleString("en")} rows (median and best of ${RUNS})\n`);
  const path = join(dir, "usage.db");
  const db = openUsageDatabase(path, 0);
  db.run("DROP TRIGGER uses_rollup");
  let t = performance.now();
  db.run(
    `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ${ROWS - 1}) INSERT INTO uses ${COLUMNS} SELECT ${ROW_SQL} FROM n`,
  );
  const written = `${((performance.now() - t) / 1000).toFixed(1)} s`;
  const built = await rollups((statement) => db.run(statement), "sqlite");
  db.run("ANALYZE");
  db.close();
  console.log(`SQLite: ${ROWS} rows written in ${written}; ${built}\n`);
  console.log("| SQLite (bun:sqlite) | median | best |\n| --- | --- | --- |");
  for (const line of await time(path, process.env)) console.log(line);
  rmSync(dir, { recursive: true, force: true });

  const cluster = process.env.PG_URL === undefined ? startPostgres() : undefined;
  const url = process.env.PG_URL ?? cluster!.url;
  const env = cluster?.env ?? process.env;
  try {
    // Created (and migrated) by the store itself; then the bulk load without the per-row trigger.
    await readUsage(url, { since: 0 }, env);
    const sql = new SQL({ url, password: env.PGPASSWORD });
    await sql.unsafe("DROP TRIGGER uses_rollup ON uses");
    t = performance.now();
    await sql.unsafe(`INSERT INTO uses ${COLUMNS} SELECT ${ROW_SQL} FROM generate_series(0::bigint, ${ROWS - 1}) AS i`);
    const pgWritten = `${((performance.now() - t) / 1000).toFixed(1)} s`;
    const pgBuilt = await rollups((statement) => sql.unsafe(statement), "postgres");
    await sql.unsafe("ANALYZE");
    await sql.close();
    console.log(`\nPostgreSQL: ${ROWS} rows written in ${pgWritten}; ${pgBuilt}\n`);
    console.log("| PostgreSQL (Bun.SQL) | median | best |\n| --- | --- | --- |");
    for (const line of await time(url, env)) console.log(line);
  } finally {
    cluster?.destroy();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
