import { SkillCentralError } from "../errors.ts";
import type { JsonSchema } from "../skill/json-schema.ts";

/** How long checking one call's arguments may take before the call is refused. */
export const GUARDED_LIMIT_MS = 100;

interface Pending {
  id: number;
  key: string;
  schema: JsonSchema;
  args: unknown;
  resolve: (problems: string[]) => void;
  reject: (error: unknown) => void;
  /** Set once the job is handed to a worker that is ready: the time limit runs from then. */
  timer?: ReturnType<typeof setTimeout>;
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
  /** Schemas this worker has been sent, by key. */
  private sent = new Set<string>();
  private readonly pending = new Map<number, Pending>();
  private readonly keys = new WeakMap<JsonSchema, string>();
  private nextId = 0;
  private nextKey = 0;

  private spawn(): Worker {
    const worker = new Worker(workerUrl());
    worker.onmessage = (event: MessageEvent<{ ready?: true; id: number; problems?: string[]; failure?: string }>) => {
      // A stopped worker may still deliver a message or an error: only the current one counts.
      if (worker !== this.worker) return;
      if (event.data.ready) {
        this.ready = true;
        for (const job of this.pending.values()) this.post(job);
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
    this.ready = false;
    return worker;
  }

  /** Hands a job to the worker once it is ready, and starts the job's time limit then. */
  private post(job: Pending): void {
    this.worker ??= this.spawn();
    if (!this.ready) return;
    const first = !this.sent.has(job.key);
    this.sent.add(job.key);
    clearTimeout(job.timer);
    job.timer = setTimeout(() => this.expire(job), GUARDED_LIMIT_MS);
    this.worker.postMessage({ id: job.id, key: job.key, ...(first && { schema: job.schema }), args: job.args });
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
    for (const job of this.pending.values()) clearTimeout(job.timer);
    if (this.pending.size > 0) this.worker = this.spawn();
  }

  check(schema: JsonSchema, args: unknown): Promise<string[]> {
    let key = this.keys.get(schema);
    if (key === undefined) {
      key = String(this.nextKey++);
      this.keys.set(schema, key);
    }
    const id = this.nextId++;
    return new Promise<string[]>((resolve, reject) => {
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
  return Bun.isStandaloneExecutable ? "./invoke/validation-worker.ts" : new URL("./validation-worker.ts", import.meta.url).href;
}

let guarded: GuardedValidator | undefined;

/** The problems with `args` against `schema`, found on the worker thread within the time limit. */
export function guardedArgumentProblems(schema: JsonSchema, args: unknown): Promise<string[]> {
  guarded ??= new GuardedValidator();
  return guarded.check(schema, args);
}
