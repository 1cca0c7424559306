/**
 * How the serving process ends, for stdio and HTTP alike: a signal (or, over stdio, stdin
 * closing) stops new work, what was accepted is answered, and the process exits 0 within a
 * deadline whatever is still open.
 */

/**
 * The drain deadline: after a signal or stdin closing, work already accepted gets this long to be
 * answered, then the process exits 0 regardless. Under a second: over stdio the client that
 * spawned the process is waiting for it to go (an IDE quitting; the SDK's client sends SIGTERM
 * two seconds after it closes stdin). HTTP derives its deadlines from this one (serve/http.ts).
 */
export const DRAIN_DEADLINE_MS = 900;

export const STOP_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
export type StopSignal = (typeof STOP_SIGNALS)[number];

/** Calls `stop` on each of SIGINT, SIGTERM and SIGHUP (every time: `stop` decides what a repeat means). */
export function onStopSignals(stop: (signal: StopSignal) => void): void {
  for (const signal of STOP_SIGNALS) process.on(signal, () => stop(signal));
}

/** Exits 0 once `deadlineMs` has passed, whatever is still open; the timer alone keeps nothing alive. */
export function exitWithin(deadlineMs: number): void {
  setTimeout(() => process.exit(0), deadlineMs).unref?.();
}
