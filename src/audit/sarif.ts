/**
 * SARIF 2.1.0 (OASIS) for code scanning (GitHub's upload-sarif, and any SARIF viewer): one run,
 * every rule with its help in `tool.driver.rules` (GitHub shows `help.markdown`; the
 * `security-severity` property sets its critical/high/medium/low), one result per finding with a
 * relative artifact URI and a region. `partialFingerprints` keep an alert the same alert across
 * runs while the finding stays where it is. Checked against the official schema in
 * test/unit/audit-sarif.test.ts.
 */
import { shortHash } from "../storage/digest.ts";
import { RULES, RULES_VERSION, type Severity } from "./rules.ts";
import type { Finding } from "./scan.ts";

export interface SarifSkill {
  id: string;
  layer: string;
  findings: readonly Finding[];
  /** The finding files' folder as a relative URI prefix (`skills/review/`, or `` for the base itself). */
  uriPrefix: string;
  /** Absent: relative to the repository (`%SRCROOT%`); else the id of the layer's folder. */
  uriBaseId?: string;
}

const LEVEL: Record<Severity, "error" | "warning" | "note"> = { high: "error", medium: "warning", low: "note" };
const SECURITY_SEVERITY: Record<Severity, string> = { high: "8.0", medium: "5.0", low: "2.0" };

/** 32 hex digits, as since the first SARIF output: a changed fingerprint is a new alert. */
function fingerprint(parts: readonly string[]): string {
  return shortHash(parts.join("\0"), 32);
}

/** A signal rule (rules.ts) is never a result, so it is not listed. */
const REPORTED = RULES.filter((r) => !r.signal);

export function sarifLog(skills: readonly SarifSkill[], version: string): object {
  const ruleIndex = new Map(REPORTED.map((r, i) => [r.id, i]));
  const results = skills.flatMap((skill) =>
    skill.findings.map((f) => ({
      ruleId: f.rule,
      ruleIndex: ruleIndex.get(f.rule) ?? 0,
      level: LEVEL[f.severity],
      message: { text: `${skill.id} (layer ${skill.layer}): ${f.message}` },
      locations: [
        {
          physicalLocation: {
            artifactLocation: {
              uri: encodeURI(`${skill.uriPrefix}${f.file}`),
              uriBaseId: skill.uriBaseId ?? "%SRCROOT%",
            },
            region: { startLine: f.line, startColumn: f.column },
          },
        },
      ],
      partialFingerprints: {
        "skillCentralFinding/v1": fingerprint([skill.layer, skill.id, f.rule, f.file, String(f.line)]),
      },
      properties: { skill: skill.id, layer: skill.layer, severity: f.severity },
    })),
  );
  return {
    $schema: "https://json.schemastore.org/sarif-2.1.0.json",
    version: "2.1.0",
    runs: [
      {
        tool: {
          driver: {
            name: "skill-central",
            version,
            semanticVersion: version,
            properties: { rulesVersion: RULES_VERSION },
            rules: REPORTED.map((r) => ({
              id: r.id,
              name: r.id.replace(/(^|-)([a-z])/g, (_, __, c: string) => c.toUpperCase()),
              shortDescription: { text: r.reason },
              fullDescription: { text: `${r.reason}. Fix: ${r.fix}` },
              help: {
                text: `${r.reason}.\nExample: ${r.example}\nFix: ${r.fix}`,
                markdown: `${r.reason}.\n\n**Example:** \`${r.example.replace(/`/g, "'")}\`\n\n**Fix:** ${r.fix}\n\nSee docs/audit.md#${r.id}.`,
              },
              defaultConfiguration: { level: LEVEL[r.severity] },
              properties: { tags: [...r.tags], "security-severity": SECURITY_SEVERITY[r.severity], precision: "high" },
            })),
          },
        },
        columnKind: "utf16CodeUnits",
        results,
      },
    ],
  };
}
