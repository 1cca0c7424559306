/**
 * Load-time findings (a broken file, a shadowed id, an unknown config key) are data, not
 * exceptions: loading collects them and each adapter decides how to show them (stderr lines in
 * `mcp` mode, compiler-style lines in the CLI, an array in the public API).
 */
export type Severity = "error" | "warning" | "note";

export interface SourcePosition {
  /** 1-based line. */
  line: number;
  /** 1-based column. */
  column: number;
}

export interface Diagnostic {
  severity: Severity;
  /** Stable machine-readable kind, e.g. `yaml-syntax`, `duplicate-id`. */
  code: string;
  message: string;
  file?: string;
  position?: SourcePosition;
}

/** `file:line:col: severity: message`, the form editors jump to. */
export function formatDiagnostic(d: Diagnostic): string {
  const where = d.file ? `${d.file}${d.position ? `:${d.position.line}:${d.position.column}` : ""}: ` : "";
  return `${where}${d.severity}: ${d.message}`;
}
