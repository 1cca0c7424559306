/**
 * One skill audited through the cache (cache.ts): the caller names the skill's files by path and
 * SHA-256 (which the load already knows), and hands a reader for their bytes, used only when the
 * cache has no answer for exactly that content. The digest (skill-digest.ts) is worked out only when
 * asked for, and kept with the findings, so a warm run neither reads nor archives anything.
 */
import type { AuditCache } from "./cache.ts";
import { type Digest, digestOf } from "../storage/digest.ts";
import { contentKey, folderDigest } from "./skill-digest.ts";
import type { Finding } from "./scan.ts";
import { auditListed, countsOf, verdictOf, type Counts, type SkillFileBytes, type Verdict } from "./verdict.ts";

export interface SkillContent {
  kind: "folder" | "file";
  /** Each file's path (relative to the skill's folder, or the layer's for a file) and lowercase hex SHA-256. */
  files: readonly { path: string; sha256: string }[];
  /** One file's bytes (undefined: it cannot be read as recorded); only for files not audited before. */
  readFile: (path: string) => Uint8Array | undefined;
  /** The digest, when the caller has it already (the well-known index made the archive). */
  digest?: Digest;
}

export interface AuditedSkill {
  findings: Finding[];
  verdict: Verdict;
  counts: Counts;
  /** Present when asked for. */
  digest?: Digest;
}

function skillDigest(kind: SkillContent["kind"], files: readonly SkillFileBytes[]): Digest {
  return kind === "folder" ? folderDigest(files) : digestOf(files[0]!.bytes);
}

/** `wantDigest`: always, never, or decided by the findings (a text report shows it for skills with findings only). */
export function auditSkill(
  cache: AuditCache | undefined,
  content: SkillContent,
  wantDigest: boolean | ((findings: readonly Finding[]) => boolean),
): AuditedSkill {
  const key = contentKey(content.kind, content.files);
  const cached = cache?.get(key);
  let findings = cached?.findings;
  let digest = cached?.digest ?? content.digest;
  const fresh = findings === undefined;
  findings ??= auditListed(content.files, content.readFile).findings;
  const want = typeof wantDigest === "function" ? wantDigest(findings) : wantDigest;
  if (want && digest === undefined) {
    const bytes = content.files.flatMap((f) => {
      const read = content.readFile(f.path);
      return read ? [{ path: f.path, bytes: read }] : [];
    });
    digest = skillDigest(content.kind, bytes);
  }
  if (fresh || (digest !== undefined && cached?.digest === undefined))
    cache?.set(key, { findings, ...(digest !== undefined && { digest }) });
  return {
    findings,
    verdict: verdictOf(findings),
    counts: countsOf(findings),
    ...(digest !== undefined && { digest }),
  };
}
