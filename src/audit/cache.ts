/**
 * Audit results by content (skill-digest.ts's `contentKey`): a skill whose files are unchanged is not
 * read or scanned again, by this process or the next (`<cache>/audit/results-<rules>.json`).
 * The rules' version is in the file name and in every key, so new rules judge everything again.
 * The file is only an optimisation: unreadable or damaged, it is ignored and rewritten.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { cacheRoot } from "../storage/cache-dir.ts";
import type { Digest } from "../storage/digest.ts";
import { RULES_VERSION } from "./rules.ts";
import type { Finding } from "./scan.ts";

export interface CachedAudit {
  findings: Finding[];
  /** Worked out when first asked for (a `.tar.gz` of a folder is not free). */
  digest?: Digest;
}

/** At most this many entries are kept; the oldest go first. */
const MAX_ENTRIES = 100_000;

export class AuditCache {
  private entries = new Map<string, CachedAudit>();
  private loaded: Promise<void> | undefined;
  private dirty = false;
  /** An asynchronous save is under way. */
  private writing = false;
  readonly file: string;

  constructor(root: string = cacheRoot()) {
    this.file = join(root, "audit", `results-${RULES_VERSION}.json`);
  }

  private take(text: string): void {
    const data = JSON.parse(text) as { entries?: Record<string, CachedAudit> };
    for (const [key, value] of Object.entries(data.entries ?? {}))
      if (Array.isArray(value?.findings) && !this.entries.has(key)) this.entries.set(key, value);
  }

  /** Reads the file once; later calls wait for the same read. */
  load(): Promise<void> {
    this.loaded ??= readFile(this.file, "utf8")
      .then((text) => this.take(text))
      .catch(() => {});
    return this.loaded;
  }

  /** The same, for a caller that cannot wait (a server's first `skills/list`: one small file). */
  loadSync(): void {
    if (this.loaded) return;
    this.loaded = Promise.resolve();
    try {
      this.take(readFileSync(this.file, "utf8"));
    } catch {
      // No cache yet, or a damaged one: every skill is audited, and the file is written again.
    }
  }

  get(key: string): CachedAudit | undefined {
    return this.entries.get(key);
  }

  set(key: string, value: CachedAudit): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    this.dirty = true;
  }

  /** Writes the file if anything changed (atomically: a reader never sees half of it). */
  async save(): Promise<void> {
    if (!this.dirty) return;
    this.dirty = false;
    this.writing = true;
    const temporary = `${this.file}.${process.pid}.tmp`;
    try {
      await mkdir(join(this.file, ".."), { recursive: true });
      await writeFile(temporary, this.text());
      await rename(temporary, this.file);
    } catch {
      // A cache that cannot be written costs time on the next run, nothing else.
    } finally {
      this.writing = false;
    }
  }

  /**
   * The same, at once: for a process that is ending (see `saveSharedSoon`), including one whose
   * `save` had not finished (the process ends before its writes would).
   */
  saveNow(): void {
    if (!this.dirty && !this.writing) return;
    this.dirty = false;
    const temporary = `${this.file}.${process.pid}.tmp`;
    try {
      mkdirSync(join(this.file, ".."), { recursive: true });
      writeFileSync(temporary, this.text());
      renameSync(temporary, this.file);
    } catch {
      // As in save.
    }
  }

  private text(): string {
    return JSON.stringify({ rules: RULES_VERSION, entries: Object.fromEntries(this.entries) });
  }
}

const shared = new Map<string, AuditCache>();
let saving: ReturnType<typeof setTimeout> | undefined;

/**
 * The process's one cache, read on first use (one small file: a server reads it on its first
 * listing, or at its first load with `audit.layers: all`), written a second after new results,
 * off any request's path.
 */
export function sharedAuditCache(root: string = cacheRoot()): AuditCache {
  let cache = shared.get(root);
  if (!cache) {
    cache = new AuditCache(root);
    cache.loadSync();
    shared.set(root, cache);
  }
  return cache;
}

export function saveSharedSoon(): void {
  saving ??= setTimeout(() => {
    saving = undefined;
    for (const cache of shared.values()) void cache.save();
  }, 1000);
  saving.unref?.();
  // A process that ends sooner (a short CLI run, a session closed at once) writes them as it
  // ends: else the next one audits every skill again, and a warm start is a full scan.
  if (!savesAtExit) {
    savesAtExit = true;
    process.once("exit", saveSharedNow);
  }
}

let savesAtExit = false;

function saveSharedNow(): void {
  clearTimeout(saving);
  saving = undefined;
  for (const cache of shared.values()) cache.saveNow();
}
