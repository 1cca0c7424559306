/**
 * A skill's audit: every finding in its files, and the verdict they add up to. `block` when any
 * finding is `high`, `warn` for `medium` or `low` only, else `pass` (issue 39). Whether a verdict
 * keeps a skill from being served is the config's `audit.block` (gate.ts), not decided here.
 * Findings of one skill combine (combine.ts) before the verdict, across its files.
 */
import { combineFindings } from "./combine.ts";
import { reaches, type Severity } from "./rules.ts";
import { scanFile, type Finding } from "./scan.ts";

export type Verdict = "pass" | "warn" | "block";

export interface SkillFileBytes {
  /** Relative to the skill's folder (a folder skill) or its layer (a skill file), `/`-separated. */
  path: string;
  bytes: Uint8Array;
}

export interface Counts {
  high: number;
  medium: number;
  low: number;
}

export interface SkillAudit {
  findings: Finding[];
  verdict: Verdict;
  counts: Counts;
}

export function verdictOf(findings: readonly Pick<Finding, "severity">[]): Verdict {
  if (findings.some((f) => f.severity === "high")) return "block";
  return findings.length > 0 ? "warn" : "pass";
}

export function countsOf(findings: readonly Pick<Finding, "severity">[]): Counts {
  const counts: Counts = { high: 0, medium: 0, low: 0 };
  for (const f of findings) counts[f.severity]++;
  return counts;
}

/** Whether any finding reaches `threshold` (`never`: none does). */
export function anyReaches(findings: readonly Pick<Finding, "severity">[], threshold: Severity | "never"): boolean {
  return findings.some((f) => reaches(f.severity, threshold));
}

/** Per file version: identical bytes at the same path are one scan, however many skills share them. */
const scanned = new Map<string, Finding[]>();
const MEMO_LIMIT = 50_000;

/** `version` names the bytes (a hash); `bytes` is called only when this version was not scanned before. */
function scanOnce(path: string, version: string, bytes: () => Uint8Array | undefined): Finding[] {
  const key = `${path}\0${version}`;
  let found = scanned.get(key);
  if (!found) {
    const read = bytes();
    if (read === undefined) return [];
    found = scanFile(path, read);
    if (scanned.size >= MEMO_LIMIT) scanned.clear();
    scanned.set(key, found);
  }
  return found;
}

/** The files' findings, combined across the skill (combine.ts): what the cache keeps by content. */
function audited(scannedFindings: Finding[]): SkillAudit {
  const findings = combineFindings(scannedFindings);
  return { findings, verdict: verdictOf(findings), counts: countsOf(findings) };
}

/** Files in memory (what `sync` fetched). */
export function auditFiles(files: readonly SkillFileBytes[]): SkillAudit {
  return audited(
    files.flatMap((f) =>
      scanOnce(f.path, new Bun.CryptoHasher("sha1").update(f.bytes).digest("base64"), () => f.bytes),
    ),
  );
}

/** Files on disk, named with their SHA-256: a file scanned before (another copy of it) is not read again. */
export function auditListed(
  files: readonly { path: string; sha256: string }[],
  readFile: (path: string) => Uint8Array | undefined,
): SkillAudit {
  return audited(files.flatMap((f) => scanOnce(f.path, f.sha256, () => readFile(f.path))));
}
