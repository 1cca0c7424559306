/** An editor's save is a burst of events (write, rename, chmod); one reload covers it. */
export const DEBOUNCE_MS = 100;

/**
 * Runs `reload` once per burst of `schedule()` calls, never two at a time: a change during a
 * reload schedules one more after it, so the last change is always picked up and an older load
 * can never overwrite a newer one.
 */
export class Reloader {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private closed = false;
  private idleWaiters: (() => void)[] = [];

  constructor(
    private readonly reload: () => Promise<void>,
    private readonly debounceMs: number = DEBOUNCE_MS,
  ) {}

  schedule(): void {
    if (this.closed) return;
    if (this.running) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.run(), this.debounceMs);
  }

  /** Runs a load at once (the first one), serialised with scheduled ones like any other. */
  async now(): Promise<void> {
    if (this.closed) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.running) {
      this.again = true;
      return this.idle();
    }
    await this.run();
  }

  private async run(): Promise<void> {
    this.timer = undefined;
    this.running = this.reload().catch(() => {
      // `reload` reports its own failures; a failed reload must not stop later ones.
    });
    await this.running;
    this.running = undefined;
    if (this.again && !this.closed) {
      this.again = false;
      this.schedule();
    } else {
      this.settle();
    }
  }

  /** Resolves once nothing is scheduled or running. */
  idle(): Promise<void> {
    if (!this.timer && !this.running) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private settle(): void {
    if (this.timer || this.running) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.running) this.settle();
  }
}
