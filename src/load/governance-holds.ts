/**
 * The skills the admin log blocks (docs/governance.md), looked up once per load, never per
 * request: the log is read from the store and each entry verified against `policy.approvers`,
 * and every version of a blocked skill (in every layer, so no lower layer's takes its place) is
 * left out of what the load serves. Imported only when the config names approvers: a start
 * without them opens no store and pays nothing.
 *
 * When the log cannot be read (the store down, the approvers file gone), the blocks of the
 * previous load stay in force: a kill switch does not switch off because the database blinked.
 */
import type { ResolvedConfig } from "../config/resolve-config.ts";
import type { Diagnostic } from "../diagnostics.ts";
import type { Candidate } from "../registry/registry.ts";
import type { Awaiting } from "./approval-holds.ts";
import { approvalsInForce, blocksInForce } from "../storage/admin-blocks.ts";
import { type CheckedEntry, checkLog } from "../storage/admin-log-record.ts";
import { readAdminLog } from "../storage/admin-log-store.ts";
import { readApprovers } from "../storage/approvers-file.ts";
import { shownStore, storeLocation } from "../storage/store-location.ts";

/** What a load obeyed: the blocks in force, the newest entry it read (what the poll compares), and the last few entries (doctor, the board). */
export interface GovernanceHolds {
  blocked: ReadonlyMap<string, CheckedEntry>;
  /** Signed approvals per skill id (policy.approval). */
  approvals: ReadonlyMap<string, readonly CheckedEntry[]>;
  /** The approval each served skill file that needed one is served under (by path). */
  approved?: ReadonlyMap<string, CheckedEntry>;
  /** The skills left out for want of an approval at their digest. */
  awaiting?: readonly Awaiting[];
  newest: number;
  recent: readonly CheckedEntry[];
}

/** How many of the newest entries a load keeps to show. */
const RECENT = 5;

/** The blocks in force for `config`, or the previous ones (with an error) when the log cannot be read. */
export async function readHolds(
  config: ResolvedConfig,
  cwd: string,
  previous: GovernanceHolds | undefined,
  diagnostics: Diagnostic[],
): Promise<GovernanceHolds> {
  const kept = previous ?? { blocked: new Map(), approvals: new Map(), newest: -1, recent: [] };
  const setting = config.stateStore;
  if (setting === undefined) return kept;
  const location = storeLocation(setting.store, setting.passwordEnv);
  const approvers = await readApprovers(config.approvers, cwd);
  const fail = (why: string): GovernanceHolds => {
    diagnostics.push({
      severity: "error",
      code: "admin-log",
      message: `cannot read the admin log: ${why}; the blocks read before stay in force (${kept.blocked.size})`,
    });
    return kept;
  };
  if ("problem" in approvers) return fail(approvers.problem);
  let checked: CheckedEntry[];
  try {
    checked = checkLog(await readAdminLog(location), approvers);
  } catch (error) {
    return fail(`${shownStore(location)}: ${error instanceof Error ? error.message : String(error)}`);
  }
  return {
    blocked: blocksInForce(checked),
    approvals: approvalsInForce(checked),
    newest: checked.at(-1)?.seq ?? 0,
    recent: checked.slice(-RECENT),
  };
}

/** `candidates` less every version of a blocked skill, each one named once (a warning, with who and why). */
export function withoutBlocked(
  candidates: Candidate[],
  holds: GovernanceHolds,
  diagnostics: Diagnostic[],
): Candidate[] {
  if (holds.blocked.size === 0) return candidates;
  const named = new Set<string>();
  return candidates.filter((c) => {
    const block = holds.blocked.get(c.skill.id);
    if (block === undefined) return true;
    if (!named.has(c.skill.id)) {
      named.add(c.skill.id);
      diagnostics.push({
        severity: "warning",
        code: "blocked",
        file: c.path,
        message: `"${c.skill.id}" is blocked by ${block.principal} (${new Date(block.at).toISOString()}): ${block.reason}`,
        hint: `skill-central unblock ${c.skill.id} --reason TEXT --key KEYFILE serves it again; skill-central log --skill ${c.skill.id} shows who and why`,
      });
    }
    return false;
  });
}
