/**
 * The governance state a load obeyed, as `doctor` shows it (docs/governance.md): the skills
 * blocked now, with who blocked them, when and why, and the admin log's newest entries with
 * their verdicts. Absent when the config names no approvers (no store was read).
 */
import type { Palette } from "../../cli-output/colour.ts";
import type { GovernanceHolds } from "../../load/governance-holds.ts";
import type { CheckedEntry } from "../../storage/admin-log-record.ts";
import { visibleLine } from "../../visible-text.ts";
import { digestBlocks, leftOutText } from "./digest-blocks.ts";

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");

function entryJson(e: CheckedEntry) {
  return {
    seq: e.seq,
    at: new Date(e.at).toISOString(),
    action: e.action,
    skill: e.skill,
    ...(e.digest !== undefined && { digest: e.digest }),
    principal: e.principal,
    fingerprint: e.fingerprint,
    reason: e.reason,
    verified: e.verified,
    ...(e.problem !== undefined && { problem: e.problem }),
  };
}

export function governanceJson(holds: GovernanceHolds) {
  return {
    blocked: [...holds.blocked.values()].map((e) => ({
      id: e.skill,
      ...entryJson(e),
      ...(e.digest !== undefined && { leftOut: digestBlocks(holds).find((b) => b.entry === e)?.leftOut ?? [] }),
    })),
    awaiting: holds.awaiting ?? [],
    recent: holds.recent.map(entryJson),
  };
}

export function governanceText(holds: GovernanceHolds, { bold, red }: Palette): string {
  let text = `\n${bold("Blocked skills")}\n`;
  text +=
    holds.blocked.size === 0
      ? "  none\n"
      : [...holds.blocked.values()]
          .map((e) => {
            if (e.digest === undefined)
              return `  ${visibleLine(`${e.skill}: blocked by ${e.principal} at ${iso(e.at)}: ${e.reason}`)}\n`;
            const block = digestBlocks(holds).find((b) => b.entry === e)!;
            return `  ${visibleLine(`${e.skill} at ${e.digest}: blocked by ${e.principal} at ${iso(e.at)}: ${e.reason}`)}\n    ${visibleLine(`only this version is held back (any other version of ${e.skill} is served); ${leftOutText(block)}`)}\n`;
          })
          .join("");
  if (holds.awaiting !== undefined) {
    text += `\n${bold("Awaiting approval")}\n`;
    text +=
      holds.awaiting.length === 0
        ? "  none\n"
        : holds.awaiting.map((a) => `  ${visibleLine(`${a.id} (layer ${a.layer}): ${a.why}`)}\n`).join("");
  }
  text += `\n${bold("Admin log")} (newest ${holds.recent.length}; skill-central log shows all)\n`;
  text +=
    holds.recent.length === 0
      ? "  no entries\n"
      : holds.recent
          .map(
            (e) =>
              `  ${visibleLine(`#${e.seq} ${iso(e.at)} ${e.action} ${e.digest ? `${e.skill}@${e.digest}` : e.skill} by ${e.principal}: ${e.reason}`)}${e.verified ? "" : ` ${red(`NOT VERIFIED: ${visibleLine(e.problem ?? "")}`)}`}\n`,
          )
          .join("");
  return text;
}
