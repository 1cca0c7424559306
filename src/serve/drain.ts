/**
 * How the serving process ends, for stdio, HTTP and the board alike: a signal (or, over stdio,
 * stdin closing) stops new work, what was accepted is answered, and the process exits 0 within a
 * deadline whatever is still open. `stopSequence` is the one order of that ending.
 */
import type { OpenSkills } from "./skills.ts";

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

export interface StopSteps {
  /** The process exits 0 at the latest this long after the stop began. */
  deadlineMs: number;
  /** Ends the transport: what it accepted is answered (up to its own drain), then its streams and connections end. */
  drain: () => Promise<void>;
  /** The skills behind the transport, once opened: closed after the drain (the watchers, then the start-up index written). */
  skills: () => OpenSkills | undefined;
  /** Where the reason for stopping is said, if one is given. */
  say?: (line: string) => void;
}

/**
 * The one stop sequence of a serving process: the exit deadline armed, the transport drained, the
 * skills closed, exit 0. The skills stay live through the drain: a request in flight may be
 * waiting for a load. Returns `stop`, which runs the sequence once however often and from
 * wherever it is called (a second signal, stdin closing, a broken stdout); `why` is said the first time.
 */
export function stopSequence(steps: StopSteps): (why?: string) => Promise<void> {
  let stopping: Promise<void> | undefined;
  return (why) => {
    stopping ??= (async () => {
      exitWithin(steps.deadlineMs);
      if (why !== undefined) steps.say?.(why);
      try {
        await steps.drain();
      } finally {
        const skills = steps.skills();
        skills?.live.close();
        skills?.close();
        process.exit(0);
      }
    })();
    return stopping;
  };
}
