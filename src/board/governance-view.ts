/**
 * The admin log's state as the board's page shows it (docs/governance.md): the skills blocked,
 * those awaiting approval (with what changed since the approved digest), and the newest log
 * entries, each marked verified or not. Mapped once per load from `LoadResult.governance`, which
 * the load read once; nothing here reads the store. The board answers only its run's token holder,
 * who sees every layer of the load, so every entry of the load is theirs to see.
 */
import type { LoadResult } from "../load/load-skills.ts";
import type { CheckedEntry } from "../storage/admin-log-record.ts";
import type { AdminLogRow, GovernanceView } from "./wire.ts";

const iso = (ms: number) => new Date(ms).toISOString();

function row(e: CheckedEntry): AdminLogRow {
  return {
    at: iso(e.at),
    principal: e.principal,
    action: e.action,
    skill: e.skill,
    ...(e.digest !== undefined && { digest: e.digest }),
    reason: e.reason,
    verified: e.verified,
    ...(e.problem !== undefined && { problem: e.problem }),
  };
}

/** `{ on: false }` when the config names no approvers (governance is off); the lists otherwise, by id. */
export function governanceView(result: Pick<LoadResult, "governance">): GovernanceView {
  const holds = result.governance;
  if (holds === undefined) return { on: false };
  const byId = <T extends { id: string }>(a: T, b: T) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  return {
    on: true,
    blocked: [...holds.blocked]
      .map(([id, e]) => ({
        id,
        principal: e.principal,
        at: iso(e.at),
        reason: e.reason,
        ...(e.digest !== undefined && { digest: e.digest }),
      }))
      .sort(byId),
    awaiting: (holds.awaiting ?? []).map((a) => ({ ...a })).sort(byId),
    log: holds.recent.map(row).reverse(),
  };
}
