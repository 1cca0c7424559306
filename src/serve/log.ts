/**
 * The operator's log: one line per event on stderr, each `[skill-central] …` (stdout belongs to
 * the stdio transport). Only the serving process writes here; library code below it takes an
 * injected `warn` callback, which the serving process points at this log.
 */
export interface Logger {
  /** What the operator is told: the address served, reloads, problems in skill files. */
  info(line: string): void;
  /** Something failed and the server goes on (or stops, saying why). */
  warn(line: string): void;
  /** Load timings and start-up milestones: written only with `--debug-timing`. */
  debug(line: string): void;
  /** Whether `debug` lines are written (worth knowing before measuring what they report). */
  readonly debugging: boolean;
}

export function createLogger(
  options: { debug?: boolean } = {},
  write: (text: string) => unknown = (text) => process.stderr.write(text),
): Logger {
  const line = (text: string): void => {
    write(`[skill-central] ${text}\n`);
  };
  const debugging = options.debug === true;
  return { info: line, warn: line, debug: debugging ? line : () => {}, debugging };
}
