/**
 * One measured session: spawn a server over stdio with the SDK Client, time the handshake, the
 * first complete prompts/list, each request kind, sequential tools/call throughput, and read the
 * child's peak RSS before closing it.
 */
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { readFileSync } from "node:fs";
import { parseLoadTiming, type LoadTiming } from "./load-timing.ts";
import { median } from "./stats.ts";
import { listAllPrompts, OP_NAMES, requestOptions, type Op, type Workload } from "./workload.ts";

/** How to start one server for one corpus. */
export interface Launch {
  command: string;
  args: string[];
  cwd: string;
  home: string;
}

export interface SessionPlan {
  /** Requests of each kind; the first is reported as "first", the median of the rest as "warm". */
  reps: number;
  calls: number;
  callSeconds: number;
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
  firstList: "spawn→first prompts/list",
  throughput: "tools/call throughput",
  rss: "peak RSS",
  op: (name: string, phase: "first" | "warm") => `${name} (${phase})`,
} as const;

const STDERR_CAP = 256 * 1024;
const open = new Set<Client>();

/** Closes every session still open (on Ctrl-C, or after a crash in the harness). */
export async function closeAllSessions(): Promise<void> {
  await Promise.allSettled([...open].map((c) => c.close()));
  open.clear();
}

/** Peak resident set size in MB, from /proc (Linux); NaN where that is unavailable. */
function peakRssMb(pid: number | null): number {
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

/** Each request kind `reps` times; every answer is checked, only the request itself is timed. */
async function measureOps(client: Client, workload: Workload, plan: SessionPlan, figures: Figures, problems: string[]): Promise<void> {
  for (const name of OP_NAMES) {
    const op = workload.ops[name];
    const samples: number[] = [];
    for (let rep = 0; rep < plan.reps; rep++) {
      const { ms, value } = await timed(() => op.run(client));
      samples.push(ms);
      const problem = op.check(value);
      if (problem) problems.push(`${name}: ${problem}`);
    }
    figures[figureKey.op(name, "first")] = samples[0] ?? Number.NaN;
    figures[figureKey.op(name, "warm")] = median(samples.slice(1));
  }
}

/** Calls `op` until `count` are done or `ms` have passed; returns how many ran, or a problem. */
async function callRepeatedly(client: Client, op: Op, count: number, ms: number): Promise<{ done: number; problem?: string }> {
  const deadline = performance.now() + ms;
  let done = 0;
  while (done < count && performance.now() < deadline) {
    const problem = op.check(await op.run(client));
    done++;
    if (problem) return { done, problem: `call ${done}: ${problem}` };
  }
  return { done };
}

/**
 * Sequential valid tools/call until `calls` are done or `callSeconds` have passed: a steady-state
 * figure, so a tenth as many untimed calls first let both ends' JIT settle.
 */
async function measureThroughput(client: Client, workload: Workload, plan: SessionPlan, problems: string[]): Promise<number> {
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
    env: { HOME: launch.home, PATH: process.env.PATH ?? "", NO_COLOR: "1" },
    stderr: "pipe",
  });
  const stderr = captureStderr(transport);
  const client = new Client({ name: "skill-central-bench", version: "0.0.0" });
  const figures: Figures = {};
  const problems: string[] = [];
  open.add(client);
  try {
    const started = performance.now();
    await client.connect(transport, requestOptions);
    figures[figureKey.init] = performance.now() - started;
    const prompts = await listAllPrompts(client);
    figures[figureKey.firstList] = performance.now() - started;
    const problem = workload.checkPrompts(prompts);
    if (problem) problems.push(`first prompts/list: ${problem}`);
    await measureOps(client, workload, plan, figures, problems);
    figures[figureKey.throughput] = await measureThroughput(client, workload, plan, problems);
    figures[figureKey.rss] = peakRssMb(transport.pid);
  } catch (error) {
    problems.push(`session aborted: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    await client.close();
    open.delete(client);
  }
  const text = stderr();
  problems.push(...stderrProblems(text));
  const load = parseLoadTiming(text);
  return { figures, problems, ...(load && { load }) };
}
