/**
 * Parses the two lines our server prints with --debug-timing after its first load:
 *   [skill-central] loaded 950 ids in 123.4 ms (config 1.2 ms, discover 3.4 ms, read+parse 96.4 ms, resolve 5.7 ms; 0 files parsed)
 *   [skill-central] since process start: mcp command 80.1 ms, index opened 85.0 ms, first load done 210.3 ms (cpu 150.2 ms)
 * Phase and milestone names are taken as printed, so new ones show up in the report without a
 * harness change. Only the first load counts (a reload prints "reloaded", not "loaded").
 */

export interface LoadTiming {
  ids: number;
  totalMs: number;
  /** Phase name → ms, in the order printed. */
  phases: Record<string, number>;
  /** Files parsed from YAML (not taken from the start-up index); absent if the server does not say. */
  filesParsed?: number;
  /** Milestone name → ms since the process started ("mcp command", …, "cpu"), in the order printed. */
  sinceStart: Record<string, number>;
}

const SUMMARY = /\[skill-central\] loaded (\d+) ids in ([\d.]+) ms \(([^)]*)\)/;
const SINCE_START = /\[skill-central\] since process start: ([^\n]*)/;
const NAMED_MS = /([a-z][a-z0-9+ -]*?):? ([\d.]+) ms/g;
const FILES_PARSED = /^\s*(\d+) files? parsed\s*$/;

function namedMs(text: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const m of text.matchAll(NAMED_MS)) out[(m[1] as string).trim()] = Number(m[2]);
  return out;
}

export function parseLoadTiming(stderr: string): LoadTiming | undefined {
  const match = SUMMARY.exec(stderr);
  if (!match) return undefined;
  // "config 1.2 ms, …, resolve 5.7 ms; 12 files parsed": phases before the first ";", counts after.
  const [phaseText = "", ...notes] = (match[3] ?? "").split(";");
  const filesParsed = notes.map((n) => FILES_PARSED.exec(n)).find((m) => m !== null)?.[1];
  const since = SINCE_START.exec(stderr);
  return {
    ids: Number(match[1]),
    totalMs: Number(match[2]),
    phases: namedMs(phaseText),
    ...(filesParsed !== undefined && { filesParsed: Number(filesParsed) }),
    sinceStart: since ? namedMs(since[1] ?? "") : {},
  };
}
