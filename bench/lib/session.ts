/**
 * One measured session: spawn a server over stdio with the SDK Client, time the handshake and the
 * first complete prompts/list, then at once a block of sequential tools/call (a session's first
 * seconds, where deferred start-up work competes with requests). Then nothing until a fixed time
 * after the first list, when peak RSS is read: work the server defers to its first idle moment
 * (writing its start-up index) counts, the requests measured later do not. Then each request kind
 * and steady-state tools/call throughput, and peak RSS again at the end.
 */
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { readFileSync } from "node:fs";
import { parseLoadTiming, type LoadTiming } from "./load-timing.ts";
import { median } from "./stats.ts";
import { listAllPrompts, OP_NAMES, requestOptions, type Op, type OpName, type Workload } from "./workload.ts";

/** How to start one server for one corpus. */
export interface Launch {
  command: string;
  args: string[];
  cwd: string;
  home: string;
  /** Added to the child's minimal environment (HOME, PATH, NO_COLOR). */
  env?: Record<string, string>;
}

export interface SessionPlan {
  /** Requests of each kind; the first is reported as "first", the median of the rest as "warm". */
  reps: number;
  /** Sequential valid tools/call started right after the first list, timed as one block. */
  firstCalls: number;
  /** Steady-state throughput: at most `calls` calls or `callSeconds`, whichever ends first. */
  calls: number;
  callSeconds: number;
  /** Peak RSS is read this long after the first complete prompts/list (later if the first calls take longer). */
  rssAfterMs: number;
}

/** Figure key → value (ms, calls/s or MB). Keys are built by figureKey(). */
export type Figures = Record<string, number>;

export interface SessionSample {
  figures: Figures;
  problems: string[];
  load?: LoadTiming;
}

export const figureKey = {
  init: "spawn→initialize",
  firstList: "spawn→complete prompts/list",
  firstCalls: "tools/call throughput, session start",
  throughput: "tools/call throughput, steady",
  rss: "peak RSS after first list",
  /** When that reading was taken, in ms after the first list (more than planned if the first calls took longer). */
  rssAt: "peak RSS read at",
  rssEnd: "peak RSS, whole session",
  op: (name: string, phase: "first" | "warm") => `${name} (${phase})`,
} as const;

const STDERR_CAP = 256 * 1024;
const CLOSE_GRACE_MS = 3_000;

interface OpenSession {
  client: Client;
  transport: StdioClientTransport;
}
const open = new Set<OpenSession>();

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, ms)));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function killPids(pids: readonly number[]): void {
  for (const pid of pids) {
    try {
      if (alive(pid)) process.kill(pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
}

/** The servers of the sessions open right now. */
export const openSessionPids = (): number[] =>
  [...open].flatMap((s) => (s.transport.pid === null ? [] : [s.transport.pid]));

/**
 * Closes every session still open (on Ctrl-C, or after a failure in the harness): a polite close
 * first (end of stdin, so a server can finish what it does at exit), then SIGKILL for any server
 * still running after a short grace period.
 */
export async function closeAllSessions(): Promise<void> {
  const sessions = [...open];
  const pids = openSessionPids();
  open.clear();
  await Promise.race([Promise.allSettled(sessions.map((s) => s.client.close())), sleep(CLOSE_GRACE_MS)]);
  killPids(pids);
}

/** Synchronous last resort for process "exit": SIGKILL every server still open. */
export function killAllSessionsNow(): void {
  killPids(openSessionPids());
  open.clear();
}

/** Peak resident set size in MB, from /proc (Linux); NaN where that is unavailable. */
export function peakRssMb(pid: number | null): number {
  if (pid === null) return Number.NaN;
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

function captureStderr(transport: StdioClientTransport): () => string {
  let text = "";
  transport.stderr?.on("data", (chunk: Buffer) => {
    if (text.length < STDERR_CAP) text += chunk.toString();
  });
  return () => text;
}

async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await fn();
  return { ms: performance.now() - started, value };
}

/**
 * Each request kind `reps` times; every answer is checked, only the request itself is timed. A
 * kind whose "first" figure was already taken (tools/call, by the first-calls block) counts every
 * sample here as warm.
 */
async function measureOps(
  client: Client,
  workload: Workload,
  plan: SessionPlan,
  figures: Figures,
  problems: string[],
): Promise<void> {
  for (const name of OP_NAMES) {
    const firstTaken = figures[figureKey.op(name, "first")] !== undefined;
    const op = workload.ops[name];
    const samples: number[] = [];
    for (let rep = 0; rep < plan.reps; rep++) {
      const { ms, value } = await timed(() => op.run(client));
      samples.push(ms);
      const problem = op.check(value);
      if (problem) problems.push(`${name}: ${problem}`);
    }
    if (!firstTaken) figures[figureKey.op(name, "first")] = samples[0] ?? Number.NaN;
    figures[figureKey.op(name, "warm")] = median(firstTaken ? samples : samples.slice(1));
  }
}

/** Calls `op` until `count` are done or `ms` have passed; returns how many ran, or a problem. */
async function callRepeatedly(
  client: Client,
  op: Op,
  count: number,
  ms: number,
): Promise<{ done: number; problem?: string }> {
  const deadline = performance.now() + ms;
  let done = 0;
  while (done < count && performance.now() < deadline) {
    const problem = op.check(await op.run(client));
    done++;
    if (problem) return { done, problem: `call ${done}: ${problem}` };
  }
  return { done };
}

const FIRST_CALLS_OP: OpName = "tools/call valid";

/**
 * Exactly `plan.firstCalls` sequential valid tools/call, started right after the first list and
 * timed as one block: throughput in a session's first seconds, while the server may still be
 * finishing deferred start-up work. The first call's latency is the session's "tools/call valid
 * (first)". No time limit (each request has its own timeout), so the figure always covers exactly
 * this many calls.
 */
async function measureFirstCalls(
  client: Client,
  workload: Workload,
  plan: SessionPlan,
  figures: Figures,
  problems: string[],
): Promise<void> {
  const op = workload.ops[FIRST_CALLS_OP];
  const started = performance.now();
  for (let i = 0; i < plan.firstCalls; i++) {
    const result = await op.run(client);
    if (i === 0) figures[figureKey.op(FIRST_CALLS_OP, "first")] = performance.now() - started;
    const problem = op.check(result);
    if (problem) {
      problems.push(`first calls: call ${i + 1}: ${problem}`);
      return;
    }
  }
  figures[figureKey.firstCalls] = (plan.firstCalls / (performance.now() - started)) * 1000;
}

/**
 * Sequential valid tools/call until `calls` are done or `callSeconds` have passed: a steady-state
 * figure, so a tenth as many untimed calls first let both ends' JIT settle.
 */
async function measureThroughput(
  client: Client,
  workload: Workload,
  plan: SessionPlan,
  problems: string[],
): Promise<number> {
  const op = workload.ops["tools/call valid"];
  const warmUp = await callRepeatedly(client, op, Math.ceil(plan.calls / 10), plan.callSeconds * 100);
  if (warmUp.problem) problems.push(`throughput warm-up ${warmUp.problem}`);
  const started = performance.now();
  const timed = await callRepeatedly(client, op, plan.calls, plan.callSeconds * 1000);
  const elapsed = performance.now() - started;
  if (timed.problem) problems.push(`throughput ${timed.problem}`);
  return (timed.done / elapsed) * 1000;
}

/** Lines our server marks as errors mean a corpus file was skipped: the counts would be wrong too. */
function stderrProblems(stderr: string): string[] {
  return stderr
    .split("\n")
    .filter((line) => /: error: /.test(line))
    .slice(0, 3)
    .map((line) => `server stderr: ${line}`);
}

export async function runSession(launch: Launch, workload: Workload, plan: SessionPlan): Promise<SessionSample> {
  const transport = new StdioClientTransport({
    command: launch.command,
    args: launch.args,
    cwd: launch.cwd,
    env: { HOME: launch.home, PATH: process.env.PATH ?? "", NO_COLOR: "1", ...launch.env },
    stderr: "pipe",
  });
  const stderr = captureStderr(transport);
  const client = new Client({ name: "skill-central-bench", version: "0.0.0" });
  const figures: Figures = {};
  const problems: string[] = [];
  const session: OpenSession = { client, transport };
  open.add(session);
  try {
    const started = performance.now();
    await client.connect(transport, requestOptions);
    figures[figureKey.init] = performance.now() - started;
    const prompts = await listAllPrompts(client);
    const listed = performance.now();
    figures[figureKey.firstList] = listed - started;
    // The calls go out before the list is checked: a pause here would hand the server idle time
    // (when it writes its index) that a real client's first requests do not leave it.
    await measureFirstCalls(client, workload, plan, figures, problems);
    await sleep(listed + plan.rssAfterMs - performance.now());
    figures[figureKey.rssAt] = performance.now() - listed;
    figures[figureKey.rss] = peakRssMb(transport.pid);
    const problem = workload.checkPrompts(prompts);
    if (problem) problems.push(`first prompts/list: ${problem}`);
    await measureOps(client, workload, plan, figures, problems);
    figures[figureKey.throughput] = await measureThroughput(client, workload, plan, problems);
    figures[figureKey.rssEnd] = peakRssMb(transport.pid);
  } catch (error) {
    problems.push(`session aborted: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    await client.close();
    open.delete(session);
  }
  const text = stderr();
  problems.push(...stderrProblems(text));
  const load = parseLoadTiming(text);
  return { figures, problems, ...(load && { load }) };
}
