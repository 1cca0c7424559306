/**
 * Requests being answered, all paths together, and whether the server is stopping: what a
 * shutdown waits for before it ends the streams and cuts the connections.
 */
export class InFlight {
  /** Set once a stop began: new requests get 503 and probes say "stopping". */
  stopping = false;
  private count = 0;
  private idle: (() => void) | undefined;

  /** Runs one request's work, counted while it runs. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    this.count++;
    try {
      return await work();
    } finally {
      this.count--;
      if (this.count === 0) this.idle?.();
    }
  }

  /** Resolves once nothing is in flight, or after `deadlineMs`, whichever comes first. */
  async settled(deadlineMs: number): Promise<void> {
    if (this.count === 0) return;
    await Promise.race([new Promise<void>((resolve) => (this.idle = resolve)), Bun.sleep(deadlineMs)]);
  }
}
