/** Arguments whose schema has a pattern that may backtrack, checked on a worker thread with a limit on its work. */
import { SkillCentralError } from "../errors.ts";
import type { JsonSchema } from "../skill/json-schema.ts";
import type { ArgumentProblem } from "./arguments.ts";

/** How much work checking one call's arguments may take before the call is refused. */
export const GUARDED_LIMIT_MS = 100;
/**
 * The limit is on work, not on the clock: on a machine busy with other processes the worker may
 * get little CPU, and a call is not refused for that. Past this much wall time it is refused
 * anyway.
 */
export const GUARDED_WALL_LIMIT_MS = 2_000;

interface Pending {
  id: number;
  key: string;
  schema: JsonSchema;
  args: unknown;
  resolve: (problems: ArgumentProblem[]) => void;
  reject: (error: unknown) => void;
  /** Set once the job is handed to a worker that is ready: the time limit runs from then. */
  timer?: ReturnType<typeof setTimeout>;
  startedAt?: number;
  cpuAtStart?: NodeJS.CpuUsage;
}

/**
 * Arguments whose schema has a pattern that may backtrack catastrophically (see
 * pattern-safety.ts) are checked on a worker thread, so a hostile input costs that one call at
 * most `GUARDED_LIMIT_MS`, never the server's attention: past the limit the worker is stopped
 * (and replaced on the next call) and the call is refused with a message that says why.
 */
class GuardedValidator {
  private worker: Worker | undefined;
  private ready = false;
  /** Schemas this worker has been sent, by key, and which of them it has compiled. */
  private sent = new Set<string>();
  private prepared = new Set<string>();
  private readonly pending = new Map<number, Pending>();
  private readonly keys = new WeakMap<JsonSchema, string>();
  private nextId = 0;
  private nextKey = 0;

  private spawn(): Worker {
    const worker = new Worker(workerUrl());
    worker.onmessage = (
      event: MessageEvent<{
        ready?: true;
        prepared?: string;
        id: number;
        problems?: ArgumentProblem[];
        failure?: string;
      }>,
    ) => {
      // A stopped worker may still deliver a message or an error: only the current one counts.
      if (worker !== this.worker) return;
      if (event.data.ready || event.data.prepared !== undefined) {
        if (event.data.ready) this.ready = true;
        else this.prepared.add(event.data.prepared!);
        for (const job of this.pending.values()) if (job.timer === undefined) this.post(job);
        return;
      }
      const job = this.pending.get(event.data.id);
      if (!job) return;
      this.pending.delete(job.id);
      clearTimeout(job.timer);
      if (event.data.failure !== undefined) job.reject(new SkillCentralError("render-failed", event.data.failure));
      else job.resolve(event.data.problems ?? []);
    };
    worker.onerror = () => {
      if (worker === this.worker) this.restart();
    };
    // The server's lifetime is its stdin's; a worker must not keep the process alive after it.
    worker.unref();
    this.sent = new Set();
    this.prepared = new Set();
    this.ready = false;
    return worker;
  }

  /**
   * Hands a job to the worker once it is ready and has compiled the job's schema, and starts the
   * job's limit then: what is timed is the check of this call's arguments, nothing else.
   */
  private post(job: Pending): void {
    this.worker ??= this.spawn();
    if (!this.ready) return;
    if (!this.sent.has(job.key)) {
      this.sent.add(job.key);
      this.worker.postMessage({ prepare: job.key, schema: job.schema });
    }
    if (!this.prepared.has(job.key)) return;
    job.startedAt = performance.now();
    job.cpuAtStart = process.cpuUsage();
    job.timer = setTimeout(() => this.checkLimit(job), GUARDED_LIMIT_MS);
    this.worker.postMessage({ id: job.id, key: job.key, args: job.args });
  }

  /**
   * At the limit: refuse the call if the process did that much work meanwhile (a backtracking
   * pattern keeps the worker busy), or if the wall-clock cap has passed; otherwise the worker was
   * waiting for a CPU, and the call gets more time.
   */
  private checkLimit(job: Pending): void {
    if (!this.pending.has(job.id)) return;
    const cpu = process.cpuUsage(job.cpuAtStart);
    const workMs = (cpu.user + cpu.system) / 1000;
    const wallMs = performance.now() - job.startedAt!;
    if (workMs >= GUARDED_LIMIT_MS || wallMs >= GUARDED_WALL_LIMIT_MS) {
      this.expire(job);
      return;
    }
    const left = Math.min(GUARDED_LIMIT_MS - workMs, GUARDED_WALL_LIMIT_MS - wallMs);
    job.timer = setTimeout(() => this.checkLimit(job), Math.max(10, left));
  }

  private expire(job: Pending): void {
    this.pending.delete(job.id);
    job.reject(
      new SkillCentralError(
        "limit-exceeded",
        `Checking the arguments took over ${GUARDED_LIMIT_MS} ms (the limit): a pattern in the tool's inputSchema backtracks too much on this input; shorten the value, or simplify the pattern`,
      ),
    );
    this.restart();
  }

  /** Stops the worker (a regular expression cannot be interrupted any other way); queued jobs move to a new one. */
  private restart(): void {
    this.worker?.terminate();
    this.worker = undefined;
    for (const job of this.pending.values()) {
      clearTimeout(job.timer);
      job.timer = undefined;
    }
    if (this.pending.size > 0) this.worker = this.spawn();
  }

  check(schema: JsonSchema, args: unknown): Promise<ArgumentProblem[]> {
    let key = this.keys.get(schema);
    if (key === undefined) {
      key = String(this.nextKey++);
      this.keys.set(schema, key);
    }
    const id = this.nextId++;
    return new Promise<ArgumentProblem[]>((resolve, reject) => {
      const job: Pending = { id, key, schema, args, resolve, reject };
      this.pending.set(id, job);
      this.post(job);
    });
  }
}

/**
 * From source, the worker is the module beside this one. In the binary, script/build.ts makes
 * it an entrypoint of its own, which Bun embeds at its path below the bundle root (`src/`); the
 * bundled `import.meta.url` there is the executable's, so the path is spelled from the root.
 */
function workerUrl(): string {
  return Bun.isStandaloneExecutable
    ? "./invoke/validation-worker.ts"
    : new URL("./validation-worker.ts", import.meta.url).href;
}

let guarded: GuardedValidator | undefined;

/** The problems with `args` against `schema`, found on the worker thread within the time limit. */
export function guardedArgumentProblems(schema: JsonSchema, args: unknown): Promise<ArgumentProblem[]> {
  guarded ??= new GuardedValidator();
  return guarded.check(schema, args);
}
