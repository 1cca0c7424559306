/**
 * The serving process's usage history: the MCP features' `onUse` hook, writing to the store the
 * config names (docs/usage.md). The hook exists from the start, since `initialize` is answered
 * before the first load; the store is known once a load has read the config, and a config edit
 * may move it or turn it off. Uses heard before the first load are kept until then, their strings
 * bounded as the store bounds them (a client's name may be megabytes).
 */
import { dirname } from "node:path";
import { stateRoot, type UsageSettings } from "../config/usage-settings.ts";
import type { OnSkillUse, SkillUse } from "../mcp/feature.ts";
import { boundedUse } from "../storage/usage-bounds.ts";
import { UsageRecorder } from "../storage/usage-store.ts";

/** Uses heard before the config is known, at most: the first load comes within moments. */
const MAX_EARLY_USES = 1_000;

export class UsageLog {
  private recorder: UsageRecorder | undefined;
  private settings: UsageSettings | undefined;
  private early: (SkillUse & { at: number; caller?: string })[] | undefined = [];

  constructor(private readonly warn: (message: string) => void) {}

  /** The hook for a server whose requests come from `caller` (HTTP sign-in); stdio has none. */
  hook(caller?: string): OnSkillUse {
    return (use) => {
      if (this.recorder !== undefined) this.recorder.record({ ...use, ...(caller !== undefined && { caller }) });
      else if (this.early !== undefined && this.early.length < MAX_EARLY_USES)
        this.early.push(boundedUse({ ...use, at: Date.now(), ...(caller !== undefined && { caller }) }));
    };
  }

  /** A load's settings: opens (lazily) the store they name, closing one they no longer name. */
  configure(settings: UsageSettings | undefined): void {
    const same = settings?.store === this.settings?.store && settings?.keepDays === this.settings?.keepDays;
    if (same && this.early === undefined) return;
    this.settings = settings;
    if (!same) {
      this.recorder?.close();
      this.recorder =
        settings === undefined || settings.store === "off"
          ? undefined
          : new UsageRecorder({
              path: settings.store,
              keepDays: settings.keepDays,
              warn: this.warn,
              // The default state folder is skill-central's own: kept private even if an older version made it.
              privateFolder: dirname(settings.store) === stateRoot(),
            });
    }
    const early = this.early ?? [];
    this.early = undefined;
    for (const use of early) this.recorder?.record(use);
  }

  /** Writes what is pending; call once, when the process ends. */
  close(): void {
    this.recorder?.close();
    this.recorder = undefined;
    this.early = undefined;
  }
}
