/**
 * The background refresh of git layers that follow a ref: one fetch at a time, never before the
 * first answer, and through the same audit gate as `sync` (audit/gate.ts): a commit the gate
 * refuses is never made current, and the copy served before stays.
 */
import { homedir } from "node:os";
import { gateFor } from "../audit/gate.ts";
import type { AuditSettings } from "../config/audit-settings.ts";
import { projectConfigPath } from "../config/config-file.ts";
import { layersFrom, type GitSource } from "../config/layer-source.ts";
import type { LayerFrom, LayerSpec } from "../config/resolve-config.ts";
import { CacheEntry } from "./cache-entry.ts";
import { GitError } from "./git.ts";
import { redactText, redactUrl } from "./git-url.ts";
import { lockfilePath, readLockfile } from "./lockfile.ts";
import { visibleLine } from "../visible-text.ts";
import { AuditRefused, CopyRefused, materialise } from "./materialise.ts";
import { pruneCopies } from "./prune.ts";
import { isLockable } from "./resolve-layers.ts";
import { commitDowngrade } from "./downgrade.ts";
import { commitSigner, SignatureRefused } from "./signatures.ts";

/** The first background fetch waits this long after the first load: start-up is not slowed. */
export const FIRST_REFRESH_DELAY_MS = 3_000;
/** A busy cache (another process is syncing it) is tried again after this long. */
const BUSY_RETRY_MS = 60_000;

export interface RefreshOptions {
  cwd: string;
  home?: string;
  /** A newer verified copy became current: the layers should be loaded again. */
  changed: () => void;
  /** One line for stderr. */
  log: (message: string) => void;
  firstDelayMs?: number;
}

interface Plan {
  key: string;
  spec: LayerFrom<GitSource>;
  timer?: ReturnType<typeof setTimeout>;
}

/**
 * Keeps git layers that follow a ref (`refresh: 1h`, no lock entry) up to date while the server
 * runs: in the background, one fetch at a time, never before the first answer. Each round
 * fetches the ref; a new commit is materialised and verified, made current in one atomic write,
 * and only then are the layers reloaded (which sends `list_changed` when the lists differ). A
 * failure is logged and the copy being served stays; a cache busy with another process's sync is
 * tried again later rather than waited for.
 */
export class BackgroundRefresh {
  private readonly plans = new Map<string, Plan>();
  private queue: Promise<void> = Promise.resolve();
  private closed = false;
  private readonly home: string;
  /** The latest load's `audit:` settings: the gate each new commit goes through. */
  private audit: AuditSettings | undefined;

  constructor(private readonly options: RefreshOptions) {
    this.home = options.home ?? homedir();
  }

  /** Re-plans from the layers and `audit:` settings of the latest load (config edits add, change and remove them). */
  async update(layers: readonly LayerSpec[], audit: AuditSettings | undefined): Promise<void> {
    this.audit = audit;
    const candidates = layersFrom(layers, "git").filter((l) => l.source.refreshMs !== undefined && !l.outsidePolicy);
    const projectFile = candidates.length > 0 ? projectConfigPath(this.options.cwd) : undefined;
    const lock = projectFile ? await readLockfile(lockfilePath(projectFile)) : undefined;
    const wanted = new Map<string, LayerFrom<GitSource>>();
    for (const spec of candidates) {
      if (isLockable(spec, projectFile) && lock?.entries.has(spec.name)) continue;
      const git = spec.source;
      wanted.set([spec.name, git.url, git.ref, git.path, git.refreshMs].join("\0"), spec);
    }
    if (this.closed) return;
    for (const [key, plan] of this.plans) {
      if (!wanted.has(key)) {
        clearTimeout(plan.timer);
        this.plans.delete(key);
      }
    }
    for (const [key, spec] of wanted) {
      if (this.plans.has(key)) continue;
      const plan: Plan = { key, spec };
      this.plans.set(key, plan);
      this.schedule(plan, await this.firstDelay(spec));
    }
  }

  /** Soon after start when the layer has no copy or its last fetch is older than its interval. */
  private async firstDelay(spec: LayerFrom<GitSource>): Promise<number> {
    const git = spec.source;
    const floor = this.options.firstDelayMs ?? FIRST_REFRESH_DELAY_MS;
    const entry = new CacheEntry(git.url, this.home);
    if (!(await entry.current(git.ref, git.path))) return floor;
    const last = (await entry.fetchRecord()).lastSuccess ?? 0;
    return Math.max(floor, last + git.refreshMs! - Date.now());
  }

  private schedule(plan: Plan, delayMs: number): void {
    if (this.closed || this.plans.get(plan.key) !== plan) return;
    clearTimeout(plan.timer);
    plan.timer = setTimeout(() => {
      this.queue = this.queue.then(() => this.run(plan));
    }, delayMs);
    // Pending refreshes never keep the process alive.
    plan.timer.unref?.();
  }

  private async run(plan: Plan): Promise<void> {
    if (this.closed || this.plans.get(plan.key) !== plan) return;
    const { name, source: git } = plan.spec;
    const entry = new CacheEntry(git.url, this.home);
    const url = redactUrl(git.url);
    const held = await entry.lock({ timeoutMs: 0 });
    if (!held) return this.schedule(plan, Math.min(BUSY_RETRY_MS, git.refreshMs!));
    let before: string | undefined;
    let commit: string | undefined;
    try {
      await entry.removeLeftovers();
      before = (await entry.current(git.ref, git.path))?.commit;
      commit = await entry.fetchRef(git.ref);
      await entry.recordFetch({ ok: true });
      // A branch moved back (an ancestor of the copy served) is refused here as by sync --update.
      const older =
        before && commit !== before
          ? await commitDowngrade(entry, commit, before, { layer: name, locked: false })
          : undefined;
      if (older !== undefined) {
        await entry.recordFetch({ ok: false, error: older });
        this.options.log(
          `background refresh of git layer "${name}" (${url}) refused: ${older}; still serving ${before!.slice(0, 12)}`,
        );
      } else if (commit !== before) {
        const signer = await commitSigner(entry.repo, commit, git);
        const copy = await materialise(entry, commit, git.path, { audit: gateFor(this.audit, name, this.home) });
        await entry.setCurrent(git.ref, git.path, { commit, contentHash: copy.contentHash, ...(signer && { signer }) });
        await pruneCopies(entry, [copy.dir]).catch(() => {});
        this.options.log(
          `git layer "${name}" (${url} ${git.ref}): ${before ? `${before.slice(0, 12)} → ` : "fetched "}${commit.slice(0, 12)}; reloading`,
        );
        if (!this.closed) this.options.changed();
      }
    } catch (error) {
      if (error instanceof AuditRefused) {
        // Refused every round until the branch moves on: a person must fix the skill or pin it.
        await entry.recordFetch({ ok: false, error: error.message }).catch(() => {});
        this.options.log(
          visibleLine(
            `background refresh of git layer "${name}" (${url}) refused commit ${commit?.slice(0, 12)}: the audit blocks it: ${error.problems.join("; ")}${before ? `; still serving ${before.slice(0, 12)}` : ""}`,
          ),
        );
      } else {
        const message =
          error instanceof GitError || error instanceof CopyRefused || error instanceof SignatureRefused
            ? error.message
            : redactText(String(error), git.url);
        await entry.recordFetch({ ok: false, error: message }).catch(() => {});
        this.options.log(
          `background refresh of git layer "${name}" (${url}) failed: ${message}${before ? `; still serving ${before.slice(0, 12)}` : ""}`,
        );
      }
    } finally {
      await held.release();
    }
    this.schedule(plan, git.refreshMs!);
  }

  /** Resolves when no refresh is running (for tests and an orderly exit). */
  idle(): Promise<void> {
    return this.queue;
  }

  close(): void {
    this.closed = true;
    for (const plan of this.plans.values()) clearTimeout(plan.timer);
    this.plans.clear();
  }
}
