/**
 * Load-time findings (a broken file, a shadowed id, an unknown config key) are data, not
 * exceptions: loading collects them and each adapter decides how to show them (stderr lines in
 * `mcp` mode, compiler-style lines in the CLI, an array in the public API).
 *
 * One severity model everywhere: an `error` is something that stops a skill (or a config
 * setting) from being used; a `warning` is served anyway but probably not what the author meant;
 * a `note` explains a decision (which layer won a tie).
 *
 * A finding quotes what it is about (a key, a name, a line of the file): `formatDiagnostic` is
 * where every adapter turns one into text for a person, so the quoted text is made visible there.
 */
import { visibleLine } from "./visible-text.ts";

export type Severity = "error" | "warning" | "note";

export interface SourcePosition {
  /** 1-based line. */
  line: number;
  /** 1-based column. */
  column: number;
}

export interface Diagnostic {
  severity: Severity;
  /** Stable machine-readable rule id, e.g. `yaml-syntax`, `duplicate-id`. */
  code: string;
  /** What is wrong, without policy (not "skipped: …": whoever reports it knows what happened). */
  message: string;
  /** How to fix it, when there is something to say. */
  hint?: string;
  /** The file it is about: an absolute path (adapters display it relative to the project). */
  file?: string;
  position?: SourcePosition;
}

export interface FormatOptions {
  /** How to show `file` (e.g. relative to the project); as written when absent. */
  display?: (file: string) => string;
  /** Words put before the message, e.g. "skipped: " for a file the server does not serve. */
  prefix?: string;
}

/**
 * `file:line:col: severity: message — hint`, the form editors jump to: one line, whose quoted file
 * content (and file name) shows its control characters as escapes rather than sending them to the
 * terminal (src/visible-text.ts).
 */
export function formatDiagnostic(d: Diagnostic, options: FormatOptions = {}): string {
  const file = d.file === undefined ? undefined : (options.display?.(d.file) ?? d.file);
  const where = file ? `${file}${d.position ? `:${d.position.line}:${d.position.column}` : ""}: ` : "";
  return visibleLine(`${where}${d.severity}: ${options.prefix ?? ""}${d.message}${d.hint ? ` — ${d.hint}` : ""}`);
}
