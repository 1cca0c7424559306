import { runSession, type FuzzFailure, type SessionOptions, type SessionPlan, type SessionReport } from "./session.ts";

/**
 * A fuzz run: `cases` cases numbered from 0, cut into sessions of fixed sizes (so case K is in
 * the same session whatever the total), each a server process of its own. Two kinds alternate:
 * - frames: 25 generated skill files beside the sentinels, then 600 generated frames;
 * - layer: 150 generated skill files and file system oddities; every served skill is then called,
 *   read and completed.
 * A case's content depends only on the seed and its number; a session's only on the seed and its
 * cases. Replaying one session (`--case K`) therefore reproduces what the server saw.
 */
const FRAMES_SESSION = { files: 25, frames: 600 };
const LAYER_SESSION = { files: 150, frames: 0 };
/** Every third session is a layer session. */
const LAYER_EVERY = 3;

export function planSessions(cases: number): SessionPlan[] {
  const plans: SessionPlan[] = [];
  for (let next = 0, index = 0; next < cases; index++) {
    const kind = index % LAYER_EVERY === LAYER_EVERY - 1 ? "layer" : "frames";
    const shape = kind === "layer" ? LAYER_SESSION : FRAMES_SESSION;
    const size = Math.min(shape.files + shape.frames, cases - next);
    const files = Math.min(shape.files, size);
    plans.push({ index, firstCase: next, kind, files, frames: size - files });
    next += size;
  }
  return plans;
}

export interface FuzzOptions extends SessionOptions {
  seed: number;
  cases: number;
  /** Run only the session holding this case. */
  only?: number;
  /** Called after each session. */
  onSession?: (report: SessionReport) => void;
}

export interface FuzzReport {
  seed: number;
  cases: number;
  sessions: SessionReport[];
  failures: FuzzFailure[];
  ms: number;
}

export async function runFuzz(options: FuzzOptions): Promise<FuzzReport> {
  const started = performance.now();
  let plans = planSessions(options.cases);
  if (options.only !== undefined)
    plans = plans.filter((p) => p.firstCase <= options.only! && options.only! < p.firstCase + p.files + p.frames);
  const sessions: SessionReport[] = [];
  for (const plan of plans) {
    const report = await runSession(options.seed, plan, options);
    sessions.push(report);
    options.onSession?.(report);
    if (report.failures.length > 0 && !options.keepGoing) break;
  }
  return {
    seed: options.seed,
    cases: options.cases,
    sessions,
    failures: sessions.flatMap((s) => s.failures),
    ms: performance.now() - started,
  };
}

/** A failure as a person replays it: seed, case, what was sent, what went wrong, and the server's last words. */
export function describeFailure(report: FuzzReport, failure: FuzzFailure, replay: string): string {
  const session = report.sessions.find((s) => s.plan.index === failure.session);
  const lines = [
    `seed ${report.seed}, session ${failure.session}${session ? ` (${session.plan.kind}; ${session.settings})` : ""}${failure.caseNumber !== undefined ? `, case ${failure.caseNumber}` : ""}${failure.label ? `: ${failure.label}` : ""}`,
    `  problem: ${failure.problem}`,
  ];
  if (failure.excerpt) lines.push(`  sent: ${JSON.stringify(failure.excerpt.slice(0, 300))}`);
  lines.push(
    `  replay: ${replay} --seed ${report.seed} --cases ${report.cases}${failure.caseNumber !== undefined ? ` --case ${failure.caseNumber}` : ""}`,
  );
  return lines.join("\n");
}

export function summarise(report: FuzzReport): string {
  const kinds: Record<string, number> = {};
  for (const s of report.sessions) for (const [k, n] of Object.entries(s.kinds)) kinds[k] = (kinds[k] ?? 0) + n;
  const requests = report.sessions.reduce((n, s) => n + s.requests, 0);
  const refusals = report.sessions.reduce((n, s) => n + s.nullRefusals, 0);
  const casesRun = report.sessions.reduce((n, s) => n + s.plan.files + s.plan.frames, 0);
  return [
    `fuzz: seed ${report.seed}, ${casesRun} cases in ${report.sessions.length} server processes, ${(report.ms / 1000).toFixed(1)} s; ${requests} replies checked, ${refusals} id-null refusals; ${report.failures.length} failures`,
    `  cases by kind: ${Object.entries(kinds)
      .sort((a, b) => b[1] - a[1])
      .map(([k, n]) => `${k} ${n}`)
      .join(", ")}`,
  ].join("\n");
}
