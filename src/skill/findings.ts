/**
 * What the skill formats find wrong, collected with positions supplied by storage (so the formats
 * know nothing of files), and bounded per kind so a generated file cannot stall a load.
 */
import type { Diagnostic, Severity, SourcePosition } from "../diagnostics.ts";
import { closest } from "../suggest.ts";

export type Path = readonly (string | number)[];

/** Where fields are written; supplied by storage, so the skill formats know nothing of files. */
export interface SourceLocators {
  /** A field's value (or, with `within`, a position inside a string value). */
  locate: (path: Path, within?: SourcePosition) => SourcePosition | undefined;
  /** A field's key. */
  locateKey: (path: Path) => SourcePosition | undefined;
}

/**
 * Findings of one kind listed per file; the rest are counted in one line. A generated file can
 * hold tens of thousands of unknown keys or undeclared variables, and locating each one walks
 * its mapping: listing them all made one 200 KB file stall a load for seconds.
 */
export const MAX_FINDINGS_PER_KIND = 10;

/** A position, or how to find it: found only for a finding that is listed. */
export type Where = SourcePosition | undefined | (() => SourcePosition | undefined);

/** Collects findings with their positions; `error` ones stop the skill from being served. */
export class Findings {
  private readonly found: Diagnostic[] = [];
  private readonly counts = new Map<string, { severity: Severity; count: number }>();
  constructor(private readonly at: SourceLocators) {}

  error(code: string, message: string, hint: string | undefined, where: Where): void {
    this.add("error", code, message, hint, where);
  }

  warning(code: string, message: string, hint: string | undefined, where: Where): void {
    this.add("warning", code, message, hint, where);
  }

  /** Whether another finding of `code` would be listed: a loop asks before the costly part of describing one. */
  room(code: string): boolean {
    return (this.counts.get(code)?.count ?? 0) < MAX_FINDINGS_PER_KIND;
  }

  /** Counts a finding of `code` that is not listed (its loop found no room). */
  unlisted(severity: Severity, code: string): void {
    this.count(severity, code);
  }

  private count(severity: Severity, code: string): number {
    const seen = this.counts.get(code) ?? { severity, count: 0 };
    seen.count++;
    this.counts.set(code, seen);
    return seen.count;
  }

  private add(severity: Severity, code: string, message: string, hint: string | undefined, where: Where): void {
    if (this.count(severity, code) > MAX_FINDINGS_PER_KIND) return;
    const position = typeof where === "function" ? where() : where;
    this.found.push({ severity, code, message, ...(hint && { hint }), ...(position && { position }) });
  }

  /** Every listed finding, then one line per kind that had more. */
  get list(): Diagnostic[] {
    const more: Diagnostic[] = [];
    for (const [code, { severity, count }] of this.counts) {
      if (count <= MAX_FINDINGS_PER_KIND) continue;
      const noun = severity === "error" ? "errors" : "warnings";
      more.push({
        severity,
        code,
        message: `${count - MAX_FINDINGS_PER_KIND} more ${noun} of this kind (${code}) are not listed; ${count} in all`,
      });
    }
    return more.length === 0 ? this.found : [...this.found, ...more];
  }

  value(path: Path, within?: SourcePosition): SourcePosition | undefined {
    return this.at.locate(path, within);
  }

  key(path: Path): SourcePosition | undefined {
    return this.at.locateKey(path);
  }

  get failed(): boolean {
    return this.found.some((d) => d.severity === "error");
  }
}

export function kindOf(value: unknown): string {
  if (value === null) return "empty";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a mapping";
  if (typeof value === "string") return "text";
  return `a ${typeof value}`;
}

/** Unknown keys of a mapping: a warning each, with the known key it most likely meant. */
export function unknownKeys(
  f: Findings,
  map: Record<string, unknown>,
  known: readonly string[],
  path: Path,
  what: string,
  reported: ReadonlySet<string> = new Set(),
): void {
  for (const key of Object.keys(map)) {
    if (known.includes(key) || reported.has(key)) continue;
    const meant = closest(key, known);
    f.warning(
      "unknown-field",
      `unknown field "${key}"${what} is ignored`,
      meant ? `did you mean "${meant}"?` : `known fields: ${known.join(", ")}`,
      () => f.key([...path, key]),
    );
  }
}
