/**
 * What the admin log says is blocked now (docs/governance.md): for each skill, its latest block
 * or unblock whose own signature verifies by an approver's key. An entry that does not verify is
 * not obeyed (a row written into the store without an approver's key blocks nothing, and unblocks
 * nothing); a broken chain does not make the entries after it void, so deleting one row cannot
 * switch every later block off (`log` shows the break).
 */
import type { CheckedEntry } from "./admin-log-record.ts";

/** What a block or unblock names: the skill id (every version), or `id@digest` (that version only). */
export function blockKey(skill: string, digest?: string): string {
  return digest === undefined ? skill : `${skill}@${digest}`;
}

/** The block in force per skill id or `id@digest`: the entry that made it. An unblock lifts exactly the block it names. */
export function blocksInForce(entries: readonly CheckedEntry[]): Map<string, CheckedEntry> {
  const blocks = new Map<string, CheckedEntry>();
  for (const e of entries) {
    if (!e.signed) continue;
    if (e.action === "block") blocks.set(blockKey(e.skill, e.digest), e);
    else if (e.action === "unblock") blocks.delete(blockKey(e.skill, e.digest));
  }
  return blocks;
}

/** The signed approvals per skill id, oldest first: an approval is of one digest, and stays until another replaces none (each counts). */
export function approvalsInForce(entries: readonly CheckedEntry[]): Map<string, CheckedEntry[]> {
  const approvals = new Map<string, CheckedEntry[]>();
  for (const e of entries)
    if (e.signed && e.action === "approve" && e.digest !== undefined)
      approvals.set(e.skill, [...(approvals.get(e.skill) ?? []), e]);
  return approvals;
}
