/**
 * Each served skill's audit as the board shows it: what `skill-central audit` reports for the
 * skill file the server serves (load/audit-records.ts, through the process's audit cache by
 * content, so a warm board reads and scans nothing again), its findings' files as people read
 * them, each with its rule's fix. The board asks for it after a load is on screen, never on the
 * way to it: the audit of a cold corpus costs seconds, so it runs in slices that let the
 * page's requests through, and stops when a newer load makes it moot.
 */
import { join } from "node:path";
import { saveSharedSoon, sharedAuditCache } from "../audit/cache.ts";
import { RULES_BY_ID } from "../audit/rules.ts";
import { auditRecords, type RecordAudit } from "../load/audit-records.ts";
import type { LoadResult } from "../load/load-skills.ts";
import type { SkillAudit } from "./wire.ts";

/** Skills audited between two turns of the event loop: a slice stays well under a frame's worth of a request's wait. */
const SLICE = 100;

function wireAudit(audit: RecordAudit, display: (path: string) => string): SkillAudit {
  return {
    verdict: audit.verdict,
    findings: audit.findings.map((f) => {
      const fix = RULES_BY_ID.get(f.rule)?.fix;
      return {
        file: display(join(audit.base, ...f.file.split("/"))),
        line: f.line,
        column: f.column,
        rule: f.rule,
        severity: f.severity,
        message: f.message,
        ...(fix !== undefined && { fix }),
      };
    }),
  };
}

/**
 * The audit of every skill `result` serves, by id; undefined when `current` says a newer load
 * came in meanwhile (its own audit follows it).
 */
export async function servedAudits(
  result: LoadResult,
  current: () => boolean,
): Promise<ReadonlyMap<string, SkillAudit> | undefined> {
  const served = new Set(result.registry.served().map((c) => c.path));
  const records = result.records.filter((r) => served.has(r.path));
  const cache = sharedAuditCache();
  const audits = new Map<string, SkillAudit>();
  try {
    for (let at = 0; at < records.length; at += SLICE) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (!current()) return undefined;
      const slice = { config: result.config, records: records.slice(at, at + SLICE) };
      for (const audit of auditRecords(slice, cache, false, { digests: result.digests }))
        audits.set(audit.id, wireAudit(audit, result.display));
    }
  } finally {
    saveSharedSoon();
  }
  return audits;
}
