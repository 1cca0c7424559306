import type { Diagnostic, SourcePosition } from "../diagnostics.ts";
import { closest } from "../suggest.ts";

export type Path = readonly (string | number)[];

/** Where fields are written; supplied by storage, so the skill formats know nothing of files. */
export interface SourceLocators {
  /** A field's value (or, with `within`, a position inside a string value). */
  locate: (path: Path, within?: SourcePosition) => SourcePosition | undefined;
  /** A field's key. */
  locateKey: (path: Path) => SourcePosition | undefined;
}

/** Collects findings with their positions; `error` ones stop the skill from being served. */
export class Findings {
  readonly list: Diagnostic[] = [];
  constructor(private readonly at: SourceLocators) {}

  error(code: string, message: string, hint: string | undefined, where: SourcePosition | undefined): void {
    this.list.push({ severity: "error", code, message, ...(hint && { hint }), ...(where && { position: where }) });
  }

  warning(code: string, message: string, hint: string | undefined, where: SourcePosition | undefined): void {
    this.list.push({ severity: "warning", code, message, ...(hint && { hint }), ...(where && { position: where }) });
  }

  value(path: Path, within?: SourcePosition): SourcePosition | undefined {
    return this.at.locate(path, within);
  }

  key(path: Path): SourcePosition | undefined {
    return this.at.locateKey(path);
  }

  get failed(): boolean {
    return this.list.some((d) => d.severity === "error");
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
export function unknownKeys(f: Findings, map: Record<string, unknown>, known: readonly string[], path: Path, what: string, reported: ReadonlySet<string> = new Set()): void {
  for (const key of Object.keys(map)) {
    if (known.includes(key) || reported.has(key)) continue;
    const meant = closest(key, known);
    f.warning(
      "unknown-field",
      `unknown field "${key}"${what} is ignored`,
      meant ? `did you mean "${meant}"?` : `known fields: ${known.join(", ")}`,
      f.key([...path, key]),
    );
  }
}

