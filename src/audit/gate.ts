/**
 * The audit gate of `sync` (docs/audit.md): what a git or url layer fetched is audited before its
 * copy is put in place (a git commit's files before they are written, a url layer's as staged), and a skill whose verdict reaches `audit.block` refuses the whole copy (the
 * copy served before, if any, stays), each refusal naming the skill, the rule and the place. An
 * `audit.allow` entry lets one skill through only while its content has exactly the digest the
 * entry pins; a changed skill is judged again. Whose entries count for which layer is allow-pins.ts.
 *
 * Called from one place per layer kind: sources/materialise.ts (git) and
 * sources/well-known/sync-layer.ts (url).
 */
import type { AuditSettings } from "../config/audit-settings.ts";
import { type Digest, digestOf, shortDigest } from "../storage/digest.ts";
import { pinOf } from "./allow-pins.ts";
import { folderDigest } from "./skill-digest.ts";
import { groupFetchedSkills } from "./group.ts";
import { RULES_BY_ID } from "./rules.ts";
import { anyReaches, auditFiles, type SkillFileBytes } from "./verdict.ts";

/** The gate's settings for one layer: the config's block and pins, and the layer's name (a project's pin counts for its own layers only). */
export type GateSettings = Pick<AuditSettings, "block" | "allow"> & { layer: string };

export interface GateOutcome {
  /** One line per blocked skill: what blocks it and where. Empty: the copy may be written. */
  refused: string[];
  /** Skills let through by `audit.allow`, with the reason given there. */
  allowed: string[];
}

/** Files of a url layer are `<skill>/<path>`, each skill's digest given by the index. */
export function auditFetched(
  files: readonly SkillFileBytes[],
  settings: GateSettings,
  indexDigests?: Readonly<Record<string, { digest: Digest }>>,
): GateOutcome {
  const outcome: GateOutcome = { refused: [], allowed: [] };
  if (settings.block === "never") return outcome;
  const skills = indexDigests ? groupByTopFolder(files) : groupFetchedSkills(files);
  for (const skill of skills) {
    const audit = auditFiles(skill.files);
    if (!anyReaches(audit.findings, settings.block)) continue;
    const digest =
      indexDigests?.[skill.id]?.digest ??
      (skill.kind === "folder" ? folderDigest(skill.files) : digestOf(skill.files[0]!.bytes));
    const { pin: allow, ignored } = pinOf(settings.allow, {
      id: skill.id,
      digest,
      layer: settings.layer,
      findings: audit.findings,
    });
    if (allow) {
      outcome.allowed.push(`${skill.id} (${shortDigest(digest)}): allowed by audit.allow: ${allow.reason}`);
      continue;
    }
    const worst = audit.findings.filter((f) => anyReaches([f], settings.block));
    const where = skill.kind === "folder" && skill.place !== "./" ? skill.place : "";
    const shown = worst
      .slice(0, 3)
      .map((f) => `${f.rule} at ${where}${f.file}:${f.line}:${f.column} (${RULES_BY_ID.get(f.rule)?.fix ?? ""})`);
    const more = worst.length > 3 ? `, and ${worst.length - 3} more` : "";
    outcome.refused.push(
      `skill "${skill.id}" is blocked by the audit (${digest}): ${shown.join("; ")}${more}; see \`skill-central audit\`, or pin this version in audit.allow${ignored.map((i) => ` (${i.file}: ${i.message})`).join("")}`,
    );
  }
  return outcome;
}

function groupByTopFolder(
  files: readonly SkillFileBytes[],
): { id: string; kind: "folder"; files: SkillFileBytes[]; place: string }[] {
  const bySkill = new Map<string, SkillFileBytes[]>();
  for (const f of files) {
    const slash = f.path.indexOf("/");
    const id = f.path.slice(0, slash);
    const list = bySkill.get(id) ?? [];
    list.push({ path: f.path.slice(slash + 1), bytes: f.bytes });
    bySkill.set(id, list);
  }
  return [...bySkill].map(([id, list]) => ({ id, kind: "folder" as const, files: list, place: `${id}/` }));
}
