/** What a load has to tell a person, as the server logs it: one line per file with findings, then the rest. */
import { formatDiagnostic, type Diagnostic } from "../diagnostics.ts";
import type { LoadResult } from "./load-skills.ts";
import type { SkillRecord } from "./record.ts";

const PREFIX: Record<SkillRecord["outcome"], string> = {
  served: "",
  skipped: "skipped: ",
  kept: "not reloaded, still serving its last good version: ",
};

/** In the order they are written; findings about the whole file (no position) after the rest. */
function byPosition(a: Diagnostic, b: Diagnostic): number {
  const line = (d: Diagnostic) => d.position?.line ?? Number.MAX_SAFE_INTEGER;
  return line(a) - line(b) || (a.position?.column ?? 0) - (b.position?.column ?? 0);
}

/** A file's findings as one line: the first error (or warning), then the rest in brief. */
function fileLine(record: SkillRecord, display: (path: string) => string): string | undefined {
  const errors = record.diagnostics.filter((d) => d.severity === "error").sort(byPosition);
  const others = record.diagnostics.filter((d) => d.severity !== "error").sort(byPosition);
  const [first, ...rest] = [...errors, ...others];
  if (!first) return undefined;
  const prefix = first.severity === "error" ? PREFIX[record.outcome] : "";
  const more = rest.length === 0 ? "" : `; also: ${rest.map((d) => d.message).join("; ")}`;
  // A kept file is broken, but its skill is still served: for the server that is a warning.
  const severity = record.outcome === "kept" ? "warning" : first.severity;
  const hint = first.hint ? ` — ${first.hint}` : "";
  return formatDiagnostic(
    { ...first, severity, message: `${first.message}${hint}${more}`, hint: undefined },
    { display, prefix },
  );
}

/**
 * What a load has to tell a person, the way the server logs it: one line per skill file with
 * findings (what happened to it, then its first problem, the others in brief), then one line per
 * finding about config, layers and resolution. `validate` shows every finding on its own line.
 */
export function loadReport(result: LoadResult): string[] {
  const lines: string[] = [];
  for (const record of result.records) {
    const line = fileLine(record, result.display);
    if (line) lines.push(line);
  }
  for (const d of result.diagnostics) lines.push(formatDiagnostic(d, { display: result.display }));
  return lines;
}
