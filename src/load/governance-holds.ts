/**
 * The skills the admin log blocks (docs/governance.md), looked up once per load, never per
 * request: the log is read from the store and each entry verified against `policy.approvers`,
 * and every version of a blocked skill (in every layer, so no lower layer's takes its place) is
 * left out of what the load serves; a block of one digest (`block ID --digest D`) leaves out only
 * the version with that digest, so another layer's version of the skill is served in its place. Imported only when the config names approvers: a start
 * without them opens no store and pays nothing.
 *
 * When the log cannot be read (the store down, the approvers file gone), the blocks of the
 * previous load stay in force: a kill switch does not switch off because the database blinked.
 */
import { sharedAuditCache } from "../audit/cache.ts";
import type { ResolvedConfig } from "../config/resolve-config.ts";
import type { Diagnostic } from "../diagnostics.ts";
import type { Candidate } from "../registry/registry.ts";
import type { Awaiting } from "./approval-holds.ts";
import { approvalsInForce, blockKey, blocksInForce } from "../storage/admin-blocks.ts";
import { type CheckedEntry, checkLog } from "../storage/admin-log-record.ts";
import { readAdminLog } from "../storage/admin-log-store.ts";
import { readApprovers } from "../storage/approvers-file.ts";
import { cacheRoot } from "../storage/cache-dir.ts";
import { shownStore, storeLocation } from "../storage/store-location.ts";
import { auditRecords } from "./audit-records.ts";
import type { DigestBook } from "./digest-book.ts";
import type { SkillRecord } from "./record.ts";

/** A version of a skill a block left out of this load: its file, its layer and the block's entry. */
export interface BlockedVersion {
  id: string;
  layer: string;
  /** The file as people see it (the candidate's `source`). */
  source: string;
  block: CheckedEntry;
}

/** What a load obeyed: the blocks in force, the newest entry it read (what the poll compares), and the last few entries (doctor, the board). */
export interface GovernanceHolds {
  blocked: ReadonlyMap<string, CheckedEntry>;
  /** The versions this load left out for a block (show and doctor name the file a digest block took out). */
  leftOut?: readonly BlockedVersion[];
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

/**
 * `candidates` less every version of a blocked skill, and each version blocked by its digest, each
 * one named once (a warning, with who and why); `leftOut` says which files went, for show and doctor.
 */
export function withoutBlocked(
  candidates: Candidate[],
  holds: GovernanceHolds,
  diagnostics: Diagnostic[],
  digestOf: (candidates: readonly Candidate[]) => ReadonlyMap<string, string>,
): { kept: Candidate[]; leftOut: BlockedVersion[] } {
  const leftOut: BlockedVersion[] = [];
  if (holds.blocked.size === 0) return { kept: candidates, leftOut };
  const byDigest = new Set([...holds.blocked.values()].filter((e) => e.digest !== undefined).map((e) => e.skill));
  // Digests are worked out only for the skills a digest block names: a load without one hashes nothing more.
  const digests =
    byDigest.size === 0 ? new Map<string, string>() : digestOf(candidates.filter((c) => byDigest.has(c.skill.id)));
  const named = new Set<string>();
  const kept = candidates.filter((c) => {
    const digest = digests.get(c.path);
    const block =
      holds.blocked.get(blockKey(c.skill.id)) ??
      (digest === undefined ? undefined : holds.blocked.get(blockKey(c.skill.id, digest)));
    if (block === undefined) return true;
    leftOut.push({ id: c.skill.id, layer: c.layer.name, source: c.source, block });
    const what = block.digest === undefined ? c.skill.id : `${c.skill.id}@${block.digest}`;
    if (!named.has(what)) {
      named.add(what);
      diagnostics.push({
        severity: "warning",
        code: "blocked",
        file: c.path,
        message: `"${c.skill.id}"${block.digest === undefined ? "" : ` at ${block.digest}`} is blocked by ${block.principal} (${new Date(block.at).toISOString()}): ${block.reason}`,
        hint: `skill-central unblock ${c.skill.id}${block.digest === undefined ? "" : ` --digest ${block.digest}`} --reason TEXT --key KEYFILE serves it again; skill-central log --skill ${c.skill.id} shows who and why`,
      });
    }
    return false;
  });
  return { kept, leftOut };
}

/** The digest (the one `audit --format json` reports) of each of `candidates`, by path. */
export function digestsOf(
  candidates: readonly Candidate[],
  loaded: { config: ResolvedConfig; records: readonly SkillRecord[] },
  options: { digests: DigestBook; home?: string | undefined },
): Map<string, string> {
  const paths = new Set(candidates.map((c) => c.path));
  const records = loaded.records.filter((r) => paths.has(r.path));
  const cache = sharedAuditCache(cacheRoot(options.home));
  const found = new Map<string, string>();
  for (const a of auditRecords({ config: loaded.config, records }, cache, true, { digests: options.digests }))
    if (a.digest !== undefined) found.set(a.path, a.digest);
  return found;
}
