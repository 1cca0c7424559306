/**
 * Every server reading the same store obeys a block within seconds (docs/governance.md): while
 * its config names approvers, it asks the store for the admin log's newest entry every
 * POLL_MS, off the request path (one cheap query on a connection kept open, never per request),
 * and reloads when it differs from what the latest load read; the reload reads the log again and
 * the server tells its clients (list_changed) as for any change of the skills.
 */
import { AdminLogProbe } from "../storage/admin-log-store.ts";
import { shownStore, storeLocation } from "../storage/store-location.ts";

/** Well inside the 5 s a block must take to reach every replica, with a reload's time to spare. */
export const POLL_MS = 1_000;

export class AdminLogPoll {
  private readonly probe: AdminLogProbe;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private closed = false;
  private failing = false;
  /** The newest entry the latest load read. */
  private seen: number;

  constructor(
    private readonly store: { store: string; passwordEnv?: string },
    newest: number,
    private readonly changed: () => void,
    private readonly warn: (message: string) => void,
  ) {
    this.seen = newest;
    this.probe = new AdminLogProbe(storeLocation(store.store, store.passwordEnv));
    this.schedule();
  }

  /** A load read the log up to `newest`. */
  loaded(newest: number): void {
    this.seen = newest;
  }

  private schedule(): void {
    if (this.closed) return;
    this.timer = setTimeout(() => void this.tick(), POLL_MS);
    this.timer.unref?.();
  }

  private async tick(): Promise<void> {
    try {
      const newest = await this.probe.newest();
      if (this.failing) this.warn("the admin log can be read again");
      this.failing = false;
      if (newest !== this.seen && !this.closed) {
        this.seen = newest;
        this.changed();
      }
    } catch (error) {
      // Said once per outage, not every second; the blocks already read stay in force.
      if (!this.failing)
        this.warn(
          `cannot poll the admin log in ${shownStore(storeLocation(this.store.store, this.store.passwordEnv))}: ${error instanceof Error ? error.message : String(error)}; the blocks read before stay in force`,
        );
      this.failing = true;
    }
    this.schedule();
  }

  close(): void {
    this.closed = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    void this.probe.close().catch(() => {});
  }
}
