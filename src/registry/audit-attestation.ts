/**
 * The audit's attestation of a published skill (docs/audit.md), carried beside the provenance in
 * `_meta["dev.skill-central/audit"]` of each `skills/list` / `skills/get` entry and of each entry
 * of the well-known index: the verdict, who judged (`skill-central <version>`, the rules'
 * version), the content judged (its digest, as `skill-central audit` reports it) and the counts
 * by severity, as the skills extension's threat model asks a server to attest what it checked.
 *
 * Worked out from the audit cache by content: the published files' digests are known already, so
 * a skill audited before (by this server, an earlier one, or `skill-central audit`) costs one
 * lookup; only new content is read and scanned. A server never scans inside a request: a
 * snapshot's first listing starts its sweep (`attestationsReady`), which scans the skills new to
 * the cache one at a time, yielding to the event loop between skills, while requests are answered
 * (a listing meanwhile carries no attestation); once it is done, the attestations are lookups.
 * `skill-central publish` attests synchronously (`auditEntryMeta`): it is a command, not a server.
 * Here, below both, because MCP (`skills/list`, the well-known route) and publish attest alike.
 */
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { auditSkill, type SkillContent } from "../audit/audit-skill.ts";
import { contentKey } from "../audit/skill-digest.ts";
import { saveSharedSoon, sharedAuditCache } from "../audit/cache.ts";
import { RULES_VERSION } from "../audit/rules.ts";
import type { Counts, Verdict } from "../audit/verdict.ts";
import { type Digest, digestHex, sha256Hex } from "../storage/digest.ts";
import { VERSION } from "../version.ts";
import { sameStamp, statStamp, type FileStamp } from "../storage/stamp.ts";
import { publishedBytes } from "./published-bytes.ts";
import { publishedCatalog, type PublishedSkill } from "./published-skills.ts";
import type { Registry } from "./registry.ts";

export const AUDIT_META_KEY = "dev.skill-central/audit";

export interface AuditAttestation {
  verdict: Verdict;
  scanner: string;
  rules: string;
  digest: Digest;
  counts: Counts;
}

function contentOf(skill: PublishedSkill, artifactDigest: Digest | undefined): SkillContent {
  const { candidate } = skill;
  if (skill.synthesised) {
    // A YAML prompt skill is judged as written: its file, not the SKILL.md made from it.
    return yamlContent(candidate.path);
  }
  return {
    kind: "folder",
    files: skill.files.map((f) => ({ path: f.path, sha256: digestHex(f.digest) })),
    readFile: (path) => publishedBytes(skill, skill.byPath.get(path)!),
    ...(artifactDigest !== undefined && { digest: artifactDigest }),
  };
}

/**
 * Per skill version: a YAML skill's `Skill`, a folder's `FolderFiles` (what a reload keeps for a
 * version it did not re-read), so a new snapshot attests only what changed.
 */
const attested = new WeakMap<object, AuditAttestation | undefined>();

/**
 * A write this recent may share its stamp with the next one (the start-up index's racy window,
 * not imported: that module brings SQLite, which the API's users do without).
 */
const RACY_MS = 2000;

/** A YAML file's SHA-256 by its stamp, across loads (a version inside the racy window is hashed again). */
const yamlHashes = new Map<string, FileStamp & { sha256: string }>();

function yamlContent(path: string): SkillContent {
  const stamp = statStamp(path);
  const known = yamlHashes.get(path);
  let bytes: Uint8Array | undefined;
  const read = () => (bytes ??= new Uint8Array(readFileSync(path)));
  let sha256 = known && sameStamp(known, stamp) ? known.sha256 : undefined;
  if (sha256 === undefined) {
    sha256 = sha256Hex(read());
    if (stamp && Date.now() - stamp.mtimeMs >= RACY_MS) yamlHashes.set(path, { ...stamp, sha256 });
  }
  return { kind: "file", files: [{ path: basename(path), sha256 }], readFile: read };
}

/**
 * The attestation of one published skill; undefined when its files cannot be read now (it is
 * being reloaded). `artifactDigest`: the well-known index's digest, when the caller has made the
 * artifact already (it is the digest of a folder skill; no second archive is made).
 */
export function auditAttestation(skill: PublishedSkill, artifactDigest?: Digest): AuditAttestation | undefined {
  const version: object = (skill.synthesised ? skill.candidate.skill : skill.candidate.files) ?? skill;
  if (attested.has(version)) return attested.get(version);
  const made = attest(skill, artifactDigest);
  // Unreadable now (being reloaded): asked again next time.
  if (made) attested.set(version, made);
  return made;
}

function attest(skill: PublishedSkill, artifactDigest: Digest | undefined): AuditAttestation | undefined {
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

/** `_meta` of a well-known index entry (registry/well-known-index.ts `EntryMetaOf`): the attestation, if any. */
export function auditEntryMeta(skill: PublishedSkill, artifactDigest: Digest): Record<string, unknown> | undefined {
  const attestation = auditAttestation(skill, artifactDigest);
  return attestation && { [AUDIT_META_KEY]: attestation };
}

/** Each snapshot's (or caller's view's) sweep: started by its first listing, done when every skill is in the cache. */
const sweeps = new WeakMap<Registry, { done: boolean }>();

/**
 * Whether every published skill of `registry` has been audited, so its attestations are cache
 * lookups; when not, starts the sweep that audits them (once per snapshot) and answers false: the
 * caller lists its skills without the attestation for now.
 */
export function attestationsReady(registry: Registry): boolean {
  let sweep = sweeps.get(registry);
  if (!sweep) {
    sweep = { done: false };
    sweeps.set(registry, sweep);
    void sweepSnapshot(registry, sweep);
  }
  return sweep.done;
}

/** The next turn of the event loop, after any I/O waiting (a request, `/healthz`) has been served. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

async function sweepSnapshot(registry: Registry, sweep: { done: boolean }): Promise<void> {
  await nextTurn();
  const cache = sharedAuditCache();
  let scanned = 0;
  for (const skill of publishedCatalog(registry).skills) {
    await nextTurn();
    try {
      const content = contentOf(skill, undefined);
      if (cache.get(contentKey(content.kind, content.files)) === undefined) scanned++;
      // The verdict only: the digest, which may mean an archive, is the listing's (the index has made it).
      auditSkill(cache, content, false);
    } catch {
      // Unreadable now (being reloaded): the listing asks again, as for any skill it cannot attest.
    }
  }
  sweep.done = true;
  if (scanned > 0) saveSharedSoon();
}
