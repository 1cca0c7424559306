/**
 * Findings that combine (issue 48 item 6): medium findings of two classes in one skill, in one file
 * or spread over several, add up to what neither says alone (a credential read and a network send
 * is exfiltration). The pairs are data (COMBINATIONS); each pair found makes one high
 * `combined-risk` finding naming every contributing finding by file:line:col, so a reader sees the
 * whole chain. Only `medium` findings count: a `high` one blocks by itself, a `low` one is
 * discussed, not done. Signal rules (rules.ts `signal`: a plain network send) are never reported
 * alone; they are dropped here once they have counted.
 */
import { type RiskClass, RULES, RULES_BY_ID } from "./rules.ts";
import type { Finding } from "./scan.ts";

/** Two classes, and what a skill with both does, for the message. */
const COMBINATIONS: readonly { classes: readonly [RiskClass, RiskClass]; does: string }[] = [
  { classes: ["secret-read", "network-send"], does: "reads credentials and sends data over the network" },
  { classes: ["tool-wildcard", "pre-approval"], does: "pre-approves every tool and tells the agent it has permission" },
  { classes: ["install-from-url", "no-ask"], does: "installs a package from a URL and tells the agent not to ask" },
  {
    classes: ["install-from-url", "pre-approval"],
    does: "installs a package from a URL and claims it is pre-approved",
  },
  // Leaving a step out of the account is medium alone; with a send or a credential read it hides that.
  { classes: ["no-ask", "network-send"], does: "sends data over the network and keeps it from the user" },
  { classes: ["no-ask", "secret-read"], does: "reads credentials and keeps it from the user" },
];

const CLASS_OF = new Map(RULES.flatMap((r) => (r.class ? [[r.id, r.class] as const] : [])));
const SIGNALS = new Set(RULES.filter((r) => r.signal).map((r) => r.id));
/** A skill with hundreds of matches names this many of each class, and counts the rest. */
const NAMED = 8;

function named(findings: readonly Finding[]): string {
  const shown = findings.slice(0, NAMED).map((f) => `${f.rule} at ${f.file}:${f.line}:${f.column}`);
  if (findings.length > NAMED) shown.push(`${findings.length - NAMED} more`);
  return shown.join(", ");
}

/** The skill's findings as reported: signals out, one `combined-risk` finding per pair found in. */
export function combineFindings(findings: readonly Finding[]): Finding[] {
  const byClass = new Map<RiskClass, Finding[]>();
  for (const f of findings) {
    const cls = f.severity === "medium" ? CLASS_OF.get(f.rule) : undefined;
    if (cls) byClass.set(cls, [...(byClass.get(cls) ?? []), f]);
  }
  const reported = SIGNALS.size > 0 ? findings.filter((f) => !SIGNALS.has(f.rule)) : [...findings];
  const rule = RULES_BY_ID.get("combined-risk")!;
  for (const { classes, does } of COMBINATIONS) {
    const [first, second] = [byClass.get(classes[0]), byClass.get(classes[1])];
    if (!first || !second) continue;
    const at = first[0]!;
    reported.push({
      rule: rule.id,
      severity: rule.severity,
      file: at.file,
      line: at.line,
      column: at.column,
      message: `the skill ${does} (${named(first)}; with ${named(second)}): ${rule.reason}`,
    });
  }
  return reported;
}
