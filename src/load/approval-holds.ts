/**
 * Approvals tied to digests (docs/governance.md): with `policy.approval: remote` (git and url
 * layers) or `all` (every layer), a skill is served only at a digest (the one `audit --format
 * json` reports and `audit.allow` pins) that an approver signed an approval of. A skill at any
 * other digest waits ("awaiting approval", naming the digest approved before) while the rest of
 * its layer is served. With `policy.twoPerson`, an approval by the key that signed the layer's
 * commit or index does not count. Looked up once per load, never per request.
 */
import { sharedAuditCache } from "../audit/cache.ts";
import { isRemote } from "../config/layer-source.ts";
import type { ResolvedConfig } from "../config/resolve-config.ts";
import type { Diagnostic } from "../diagnostics.ts";
import type { Candidate } from "../registry/registry.ts";
import type { CheckedEntry } from "../storage/admin-log-record.ts";
import { cacheRoot } from "../storage/cache-dir.ts";
import { auditRecords } from "./audit-records.ts";
import type { DigestBook } from "./digest-book.ts";
import type { SkillRecord } from "./record.ts";

/** A skill that needs an approval and has none at its digest: what `doctor` and the board show. */
export interface Awaiting {
  id: string;
  layer: string;
  digest?: string;
  why: string;
}

/** The approval that lets `candidate` be served at `digest`, or why none does. */
/** What changed from the approved files to `now`'s: `changed a.md; added b.md; removed c.md` (none: ""). */
export function filesChanged(
  approved: readonly (readonly [string, string])[],
  now: readonly { path: string; sha256: string }[],
): string {
  const before = new Map(approved);
  const after = new Map(now.map((f) => [f.path, f.sha256]));
  const changed = [...after].filter(([p, h]) => before.has(p) && before.get(p) !== h).map(([p]) => p);
  const added = [...after.keys()].filter((p) => !before.has(p));
  const removed = [...before.keys()].filter((p) => !after.has(p));
  return [
    changed.length > 0 ? `changed ${changed.sort().join(", ")}` : "",
    added.length > 0 ? `added ${added.sort().join(", ")}` : "",
    removed.length > 0 ? `removed ${removed.sort().join(", ")}` : "",
  ]
    .filter((part) => part !== "")
    .join("; ");
}

export function approvalFor(
  candidate: Pick<Candidate, "layer">,
  digest: string,
  approvals: readonly CheckedEntry[],
  twoPerson: boolean,
  files?: readonly { path: string; sha256: string }[],
): CheckedEntry | { refused: string } {
  const atDigest = approvals.filter((a) => a.digest === digest);
  const signer = candidate.layer.provenance?.signer;
  const counted = twoPerson && signer ? atDigest.filter((a) => a.fingerprint !== signer.fingerprint) : atDigest;
  const approval = counted.at(-1);
  if (approval) return approval;
  if (atDigest.length > 0)
    return {
      refused: `awaiting approval: approved only by ${atDigest.at(-1)!.principal}, who signed the content (${signer!.principal}); policy.twoPerson needs another approver`,
    };
  const before = approvals.at(-1);
  const changed = before?.files && files ? filesChanged(before.files, files) : "";
  return {
    refused: before
      ? `awaiting approval: this version is ${digest}; the approved one was ${before.digest} (by ${before.principal})${changed ? `; since then: ${changed}` : ""}`
      : `awaiting approval: no approval of ${digest} yet`,
  };
}

/** `candidates` less those that need an approval and have none at their digest (each named, a warning). */
export function withoutUnapproved(
  candidates: Candidate[],
  loaded: { config: ResolvedConfig; records: readonly SkillRecord[] },
  approvals: ReadonlyMap<string, readonly CheckedEntry[]>,
  options: { digests: DigestBook; home?: string | undefined },
  diagnostics: Diagnostic[],
): { kept: Candidate[]; approved: Map<string, CheckedEntry>; awaiting: Awaiting[] } {
  const { config } = loaded;
  const scope = config.approval ?? "off";
  const remote = new Set(config.layers.filter((l) => isRemote(l.source)).map((l) => l.name));
  const needs = (c: Candidate) => scope === "all" || (scope === "remote" && remote.has(c.layer.name));
  const paths = new Set(candidates.filter(needs).map((c) => c.path));
  const approved = new Map<string, CheckedEntry>();
  const awaiting: Awaiting[] = [];
  if (paths.size === 0) return { kept: candidates, approved, awaiting };
  const records = loaded.records.filter((r) => paths.has(r.path));
  const cache = sharedAuditCache(cacheRoot(options.home));
  const audits = new Map(
    auditRecords({ config, records }, cache, true, { digests: options.digests }).map((a) => [a.path, a]),
  );
  const kept = candidates.filter((c) => {
    if (!paths.has(c.path)) return true;
    const audit = audits.get(c.path);
    const digest = audit?.digest;
    const found =
      digest === undefined
        ? { refused: "awaiting approval: its digest cannot be worked out" }
        : approvalFor(c, digest, approvals.get(c.skill.id) ?? [], config.twoPerson === true, audit!.files);
    if ("refused" in found) {
      awaiting.push({
        id: c.skill.id,
        layer: c.layer.name,
        ...(digest !== undefined && { digest }),
        why: found.refused,
      });
      diagnostics.push({
        severity: "warning",
        code: "awaiting-approval",
        file: c.path,
        message: `"${c.skill.id}" is not served: ${found.refused}`,
        hint: `an approver runs: skill-central approve ${c.skill.id}@${digest ?? "DIGEST"} --reason TEXT --key KEYFILE`,
      });
      return false;
    }
    approved.set(c.path, found);
    return true;
  });
  // Carried to skills/list and skills/get as `_meta["dev.skill-central/approval"]`.
  const attested = kept.map((c) => {
    const a = approved.get(c.path);
    return a
      ? {
          ...c,
          approval: {
            principal: a.principal,
            fingerprint: a.fingerprint,
            at: new Date(a.at).toISOString(),
            digest: a.digest!,
          },
        }
      : c;
  });
  return { kept: attested, approved, awaiting };
}
