/**
 * The operator's log: one line per event on stderr (stdout belongs to the stdio transport). Only
 * the serving process writes here; library code below it takes an injected `warn` callback,
 * which the serving process points at this log.
 *
 * `text` (the default): `[skill-central] …` lines for a person. `json` (`--log-format json`):
 * every line one JSON object for a log shipper, `{time, level, message}`, and the HTTP access
 * log's records as they are (`{time, method, route, status, …}`, docs/http.md).
 *
 * A text line quotes what clients and files said (a client's name, a skill file's key): each is
 * written with its control characters as escapes and its line breaks folded (src/visible-text.ts),
 * so it cannot drive the operator's terminal or forge a line of the log. JSON lines are for
 * programs: JSON.stringify escapes what would break a line, and the message is kept as given (a
 * finding's line is made visible where it is formatted, src/diagnostics.ts, for both formats).
 */
import { visibleLine } from "../visible-text.ts";

export type LogFormat = "text" | "json";
export const LOG_FORMATS: readonly LogFormat[] = ["text", "json"];

export interface Logger {
  /** What the operator is told: the address served, reloads, problems in skill files. */
  info(line: string): void;
  /** Several `info` lines in one write (a load's report: a line per skill file with findings). */
  infoAll(lines: readonly string[]): void;
  /** Something failed and the server goes on (or stops, saying why). */
  warn(line: string): void;
  /** Load timings and start-up milestones: written only with `--debug-timing`. */
  debug(line: string): void;
  /** Whether `debug` lines are written (worth knowing before measuring what they report). */
  readonly debugging: boolean;
  /** In the json format only: writes a record (the access log's) as one line, as it is. */
  readonly record?: (record: object) => void;
}

/** The serving process's log, as its command line asks (`--debug-timing`, `--log-format`). */
export function serveLogger(options: { debugTiming?: boolean; logFormat?: LogFormat }): Logger {
  return createLogger({ debug: options.debugTiming, format: options.logFormat ?? "text" });
}

export function createLogger(
  options: { debug?: boolean; format?: LogFormat } = {},
  write: (text: string) => unknown = (text) => process.stderr.write(text),
): Logger {
  const debugging = options.debug === true;
  if (options.format === "json") {
    const record = (fields: object): void => {
      write(`${JSON.stringify(fields)}\n`);
    };
    const at = (level: "info" | "warn" | "debug") => (message: string) =>
      record({ time: new Date().toISOString(), level, message });
    const infoAll = (messages: readonly string[]): void => {
      if (messages.length === 0) return;
      const time = new Date().toISOString();
      write(messages.map((message) => `${JSON.stringify({ time, level: "info", message })}\n`).join(""));
    };
    return {
      info: at("info"),
      infoAll,
      warn: at("warn"),
      debug: debugging ? at("debug") : () => {},
      debugging,
      record,
    };
  }
  const line = (text: string): void => {
    write(`[skill-central] ${visibleLine(text)}\n`);
  };
  const infoAll = (texts: readonly string[]): void => {
    if (texts.length > 0) write(texts.map((text) => `[skill-central] ${visibleLine(text)}\n`).join(""));
  };
  return { info: line, infoAll, warn: line, debug: debugging ? line : () => {}, debugging };
}
