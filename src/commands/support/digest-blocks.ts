/**
 * The blocks of one version of a skill (`block ID --digest D`, docs/governance.md) as `show` and
 * `doctor` name them: the digest, who blocked it, when and why, and the file each took out of the
 * load, so a reader sees that this version is held back and any other version is still served.
 */
import type { GovernanceHolds } from "../../load/governance-holds.ts";
import type { CheckedEntry } from "../../storage/admin-log-record.ts";
import { visibleLine } from "../../visible-text.ts";

/** One digest block in force for a skill, and the versions (layer, file) it left out. */
export interface DigestBlock {
  id: string;
  digest: string;
  entry: CheckedEntry;
  leftOut: { layer: string; file: string }[];
}

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");

/** Every digest block in force, of `id` alone when given, with what each left out of the load. */
export function digestBlocks(holds: GovernanceHolds | undefined, id?: string): DigestBlock[] {
  if (holds === undefined) return [];
  const blocks: DigestBlock[] = [];
  for (const entry of holds.blocked.values()) {
    if (entry.digest === undefined || (id !== undefined && entry.skill !== id)) continue;
    const leftOut = (holds.leftOut ?? [])
      .filter((v) => v.block === entry)
      .map((v) => ({ layer: v.layer, file: v.source }));
    blocks.push({ id: entry.skill, digest: entry.digest, entry, leftOut });
  }
  return blocks;
}

/** What a digest block took out, in words: the files, or that no version loaded here has that digest. */
export function leftOutText(block: DigestBlock): string {
  return block.leftOut.length === 0
    ? "no version loaded here has this digest"
    : `left out: ${block.leftOut.map((v) => `${v.file} (layer ${v.layer})`).join(", ")}`;
}

/** One block as a line: `at D: blocked by P (fingerprint) at T: reason`, controls made visible. */
export function blockLine(block: DigestBlock): string {
  const e = block.entry;
  return visibleLine(`at ${block.digest}: blocked by ${e.principal} (${e.fingerprint}) at ${iso(e.at)}: ${e.reason}`);
}

/** A digest block as `--json` shows it. */
export function digestBlockJson(block: DigestBlock) {
  const e = block.entry;
  return {
    digest: block.digest,
    principal: e.principal,
    fingerprint: e.fingerprint,
    at: new Date(e.at).toISOString(),
    reason: e.reason,
    leftOut: block.leftOut,
  };
}
