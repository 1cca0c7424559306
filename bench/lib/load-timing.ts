/**
 * Parses the load summary our server prints with --debug-timing:
 *   [skill-central] loaded 950 ids in 123.4 ms (config 1.2 ms, discover 3.4 ms, read 20.1 ms, …)
 * Phase names are taken as printed, so new phases show up in the report without a harness change.
 */

export interface LoadTiming {
  ids: number;
  totalMs: number;
  /** Phase name → ms, in the order printed. */
  phases: Record<string, number>;
}

const SUMMARY = /\[skill-central\] loaded (\d+) ids in ([\d.]+) ms \(([^)]*)\)/;
const PHASE = /^\s*(\S+) ([\d.]+) ms\s*$/;

export function parseLoadTiming(stderr: string): LoadTiming | undefined {
  const match = SUMMARY.exec(stderr);
  if (!match) return undefined;
  const phases: Record<string, number> = {};
  for (const part of (match[3] ?? "").split(",")) {
    const phase = PHASE.exec(part);
    if (phase) phases[phase[1] as string] = Number(phase[2]);
  }
  return { ids: Number(match[1]), totalMs: Number(match[2]), phases };
}
