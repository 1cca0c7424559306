import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { auditSkill, type SkillContent } from "../audit/audit-skill.ts";
import { saveSharedSoon, sharedAuditCache } from "../audit/cache.ts";
import { RULES_VERSION } from "../audit/rules.ts";
import type { Counts, Verdict } from "../audit/verdict.ts";
import type { PublishedSkill } from "../registry/published-skills.ts";
import { VERSION } from "../version.ts";
import { bytesOf } from "./skill-files.ts";

/**
 * The audit's attestation of a published skill (docs/audit.md), carried beside the provenance in
 * `_meta["dev.skill-central/audit"]` of each `skills/list` / `skills/get` entry and of each entry
 * of the well-known index: the verdict, who judged (`skill-central <version>`, the rules'
 * version), the content judged (its digest, as `skill-central audit` reports it) and the counts
 * by severity, as the skills extension's threat model asks a server to attest what it checked.
 *
 * Worked out on a snapshot's first listing, never at start-up, from the audit cache by content:
 * the published files' digests are known already, so a skill audited before (by this server, an
 * earlier one, or `skill-central audit`) costs one lookup; only new content is read and scanned.
 */
export const AUDIT_META_KEY = "dev.skill-central/audit";

export interface AuditAttestation {
  verdict: Verdict;
  scanner: string;
  rules: string;
  digest: string;
  counts: Counts;
}

function contentOf(skill: PublishedSkill, artifactDigest: string | undefined): SkillContent {
  const { candidate } = skill;
  if (skill.synthesised) {
    // A YAML prompt skill is judged as written: its file, not the SKILL.md made from it.
    const file = { path: basename(candidate.path), bytes: new Uint8Array(readFileSync(candidate.path)) };
    return {
      kind: "file",
      files: [{ path: file.path, sha256: new Bun.CryptoHasher("sha256").update(file.bytes).digest("hex") }],
      readFile: () => file.bytes,
    };
  }
  return {
    kind: "folder",
    files: skill.files.map((f) => ({ path: f.path, sha256: f.digest.slice("sha256:".length) })),
    readFile: (path) => bytesOf(skill, skill.byPath.get(path)!),
    ...(artifactDigest !== undefined && { digest: artifactDigest }),
  };
}

/** Per published skill: `skills/get` asks again and again for the same entry. */
const attested = new WeakMap<PublishedSkill, AuditAttestation | undefined>();

/**
 * The attestation of one published skill; undefined when its files cannot be read now (it is
 * being reloaded). `artifactDigest`: the well-known index's digest, when the caller has made the
 * artifact already (it is the digest of a folder skill; no second archive is made).
 */
export function auditAttestation(skill: PublishedSkill, artifactDigest?: string): AuditAttestation | undefined {
  if (attested.has(skill)) return attested.get(skill);
  const made = attest(skill, artifactDigest);
  attested.set(skill, made);
  return made;
}

function attest(skill: PublishedSkill, artifactDigest: string | undefined): AuditAttestation | undefined {
  try {
    const audited = auditSkill(sharedAuditCache(), contentOf(skill, artifactDigest), true);
    saveSharedSoon();
    return {
      verdict: audited.verdict,
      scanner: `skill-central ${VERSION}`,
      rules: RULES_VERSION,
      digest: audited.digest!,
      counts: audited.counts,
    };
  } catch {
    return undefined;
  }
}
