/**
 * An admin log row as either backend returns it, as an entry: PostgreSQL gives BIGINT columns as
 * strings and SQLite gives numbers, and a NULL digest is an entry about every version.
 */
import type { AdminAction, AdminEntry } from "./admin-log-record.ts";

export function adminRow(row: Record<string, unknown>): AdminEntry {
  return {
    seq: Number(row.seq),
    at: Number(row.at),
    principal: String(row.principal),
    fingerprint: String(row.fingerprint),
    action: String(row.action) as AdminAction,
    skill: String(row.skill),
    ...(row.digest !== null && row.digest !== undefined && { digest: String(row.digest) }),
    reason: String(row.reason),
    ...(typeof row.files === "string" && { files: JSON.parse(row.files) as [string, string][] }),
    prev: String(row.prev),
    signature: String(row.signature),
  };
}
