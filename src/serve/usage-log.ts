/**
 * The serving process's usage history: the MCP features' `onUse` hook, writing to the store the
 * config names (docs/usage.md), each use tagged with this server's project (project-identity.ts).
 * The hook exists from the start, since `initialize` is answered before the first load; the store
 * is known once a load has read the config, and a config edit may move it or turn it off. Uses
 * heard before the first load are kept until then, their strings bounded as the store bounds them
 * (a client's name may be megabytes).
 */
import { dirname } from "node:path";
import { stateRoot, type UsageSettings } from "../config/usage-settings.ts";
import type { OnSkillUse, SkillUse } from "../mcp/feature.ts";
import { storeLocation } from "../storage/store-location.ts";
import { boundedUse } from "../storage/usage-bounds.ts";
import type { UsageRecorder } from "../storage/usage-store.ts";

/** Uses heard before the store is open, at most: the first load comes within moments, the store's module soon after. */
const MAX_EARLY_USES = 1_000;

type EarlyUse = SkillUse & { at: number; caller?: string; project: string };

export class UsageLog {
  private recorder: UsageRecorder | undefined;
  private settings: UsageSettings | undefined;
  /** Whether a load has named the settings yet (undefined settings then mean no store). */
  private configured = false;
  /** Uses waiting for the store: heard before the first load, or while its module is imported. */
  private early: EarlyUse[] = [];
  /** The store's module, imported on the first use, not at start: a server nobody calls never loads it. */
  private opening: Promise<void> | undefined;
  /** Dropped by recorders this process closed (a config edit moved the store). */
  private droppedBefore = 0;

  private projectId: string | undefined;

  /** `project`: this server's identity in the store (project-identity.ts), worked out on the first use, not at start. */
  constructor(
    private readonly warn: (message: string) => void,
    private readonly project: () => string,
  ) {}

  /** Uses dropped so far because the store's buffer was full (`skill_central_usage_dropped_total`). */
  get dropped(): number {
    return this.droppedBefore + (this.recorder?.dropped ?? 0);
  }

  /** The hook for a server whose requests come from `caller` (HTTP sign-in); stdio has none. */
  hook(caller?: string): OnSkillUse {
    return (use) => {
      this.projectId ??= this.project();
      const row = { ...use, project: this.projectId, ...(caller !== undefined && { caller }) };
      if (this.recorder !== undefined) this.recorder.record(row);
      else if (this.configured && !this.storeOn) return;
      else {
        if (this.early.length < MAX_EARLY_USES) this.early.push(boundedUse({ ...row, at: Date.now() }));
        this.open();
      }
    };
  }

  private get storeOn(): boolean {
    return this.settings !== undefined && this.settings.store !== "off";
  }

  /** A load's settings: the store they name is opened on the next use; one they no longer name is closed. */
  configure(settings: UsageSettings | undefined): void {
    const same =
      this.configured &&
      settings?.store === this.settings?.store &&
      settings?.keepDays === this.settings?.keepDays &&
      settings?.buffer === this.settings?.buffer &&
      settings?.passwordEnv === this.settings?.passwordEnv;
    if (same) return;
    this.configured = true;
    this.settings = settings;
    void this.closeRecorder();
    if (!this.storeOn) this.early = [];
    else if (this.early.length > 0) this.open();
  }

  /** Imports the store's module (once) and opens the store the settings name, then writes what waited. */
  private open(): void {
    if (!this.configured || !this.storeOn) return;
    this.opening ??= import("../storage/usage-store.ts").then(
      (module) => {
        this.opening = undefined;
        this.openWith(module.UsageRecorder);
      },
      (error: unknown) => {
        this.opening = undefined;
        this.early = [];
        this.warn(`usage history is off: ${error instanceof Error ? error.message : String(error)}`);
      },
    );
  }

  private openWith(Recorder: typeof UsageRecorder): void {
    const settings = this.settings;
    if (this.recorder !== undefined || settings === undefined || settings.store === "off") return;
    this.recorder = new Recorder({
      store: storeLocation(settings.store, settings.passwordEnv),
      keepDays: settings.keepDays,
      buffer: settings.buffer,
      warn: this.warn,
      // The default state folder is skill-central's own: kept private even if an older version made it.
      privateFolder: dirname(settings.store) === stateRoot(),
    });
    const early = this.early;
    this.early = [];
    for (const use of early) this.recorder.record(use);
  }

  private closeRecorder(): Promise<void> {
    const recorder = this.recorder;
    this.recorder = undefined;
    if (recorder === undefined) return Promise.resolve();
    this.droppedBefore += recorder.dropped;
    return recorder.close();
  }

  /**
   * Writes what is pending; call once, when the process ends. A file store is written before it
   * returns (once its module, if under way, has arrived); a database's last batch is the
   * promise's (bounded).
   */
  async close(): Promise<void> {
    if (this.opening !== undefined) await this.opening;
    this.early = [];
    this.configured = true;
    this.settings = undefined;
    return this.closeRecorder();
  }
}
