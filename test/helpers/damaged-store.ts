/**
 * Usage stores a user may find on disk after a crash or a bad copy: garbage bytes where the store
 * is (SQLite: file is not a database), and a real store cut in half (database disk image is
 * malformed). Shared by the tests of the server, the `usage` command and the board over them.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { openUsageDatabase } from "../../src/storage/usage-sqlite.ts";

/** Garbage bytes where the store is. */
export function writeGarbageStore(path: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, "not a SQLite database, just bytes a crash left behind\n".repeat(200));
}

/** A real store with thousands of rows, cut in half. */
export function writeTruncatedStore(path: string): void {
  const db = openUsageDatabase(path, 0);
  const insert = db.prepare(
    "INSERT INTO uses (at, skill, layer, client, caller, outcome, via) VALUES (?, 'echo', 'project', 'c', NULL, 'ok', 'tools/call')",
  );
  const now = Date.now();
  db.transaction(() => {
    for (let i = 0; i < 5000; i++) insert.run(now - i);
  })();
  db.run("PRAGMA wal_checkpoint(TRUNCATE)");
  db.run("PRAGMA journal_mode = DELETE");
  db.close();
  const bytes = readFileSync(path);
  writeFileSync(path, bytes.subarray(0, bytes.length / 2));
}

/** Each kind of damage, with the reason SQLite gives for it. */
export const DAMAGE = [
  { kind: "garbage bytes", write: writeGarbageStore, reason: "file is not a database" },
  { kind: "a truncated store", write: writeTruncatedStore, reason: "database disk image is malformed" },
] as const;
