/**
 * The one way a config block reader reports a problem: a `ConfigProblem` handed to a
 * `ReportProblem` callback, never an exception, a return value or a reader-specific callback.
 * `path` names the key the problem is about, relative to what the reader was given (a layer's
 * reader says `["url"]`; config-file.ts, which knows where the layer is, prefixes it); the file's
 * reader turns it into a Diagnostic placed by the YAML document's `locateKey(path)`, computed
 * only then (locating runs the slower, precise parse).
 */

export type ConfigPath = readonly (string | number)[];

export interface ConfigProblem {
  message: string;
  /** The key the problem is about; `[]` for the block itself. */
  path: ConfigPath;
  hint?: string;
  /** Default `warning`; an `error` fails `validate` (a dropped layer, a misspelt `layers:`). */
  severity?: "warning" | "error";
}

export type ReportProblem = (problem: ConfigProblem) => void;

/** A reporter for a reader of the block at `prefix`: its paths are made relative to the file. */
export function under(prefix: ConfigPath, report: ReportProblem): ReportProblem {
  return (problem) => report({ ...problem, path: [...prefix, ...problem.path] });
}
