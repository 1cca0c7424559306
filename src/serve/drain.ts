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

/**
 * Exits 0 once `deadlineMs` has passed, whatever is still open, after `last` (what must not be
 * lost: the usage rows and the start-up index are written synchronously); the timer alone keeps
 * nothing alive.
 */
function exitWithin(deadlineMs: number, last: () => unknown): void {
  setTimeout(() => {
    try {
      last();
    } finally {
      process.exit(0);
    }
  }, deadlineMs).unref?.();
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

/** The stop sequence: call it to stop (once, however often); `arm` starts the deadline early. */
export interface StopSequence {
  (why?: string): Promise<void>;
  /** Arms the exit deadline now, before the drain begins (a signal over stdio: stop reading, then drain). */
  arm(): void;
}

/**
 * The one stop sequence of a serving process: the exit deadline armed, the transport drained, the
 * skills closed, exit 0. The skills stay live through the drain: a request in flight may be
 * waiting for a load. The skills are closed (usage rows and the start-up index written) on every
 * way out, the deadline's too: a drain slowed by a busy machine used to reach `process.exit`
 * first and drop the uses still pending. `why` is said the first time.
 */
export function stopSequence(steps: StopSteps): StopSequence {
  let stopping: Promise<void> | undefined;
  let armed = false;
  let closed = false;
  let closing: Promise<void> = Promise.resolve();
  const closeSkills = (): Promise<void> => {
    if (closed) return closing;
    closed = true;
    const skills = steps.skills();
    skills?.live.close();
    // A file store is written before close returns; a database's last uses are awaited below,
    // the exit deadline bounding them.
    closing = skills?.close().catch(() => {}) ?? Promise.resolve();
    return closing;
  };
  const arm = () => {
    if (armed) return;
    armed = true;
    exitWithin(steps.deadlineMs, closeSkills);
  };
  const stop = (why?: string) => {
    stopping ??= (async () => {
      arm();
      if (why !== undefined) steps.say?.(why);
      try {
        await steps.drain();
      } finally {
        await closeSkills();
        process.exit(0);
      }
    })();
    return stopping;
  };
  return Object.assign(stop, { arm });
}
