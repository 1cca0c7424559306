/** Where a skill's template and examples come from when it is used: memory until the start-up index has them, then the index. */
import { SkillCentralError } from "../errors.ts";
import type { ContentSource, SkillContent } from "../skill/skill.ts";
import { sameStamp, type FileStamp } from "../storage/stamp.ts";
import type { StartupIndex } from "./startup-index.ts";

/** Reads a file again: its stamp, and its content if it still parses to a servable skill. */
export type Reparse = (path: string) => { stamp?: FileStamp; content?: SkillContent };

/** Content kept in memory once read from the index, least recently used first out. */
const CACHE_BUDGET_CHARS = 8 * 1024 * 1024;

function sizeOf(content: SkillContent): number {
  return (content.template?.length ?? 0) + (content.examples.length > 0 ? JSON.stringify(content.examples).length : 0);
}

function versionKey(path: string, stamp: FileStamp | undefined): string {
  return stamp ? `${path}\0${stamp.size}\0${stamp.mtimeMs}\0${stamp.ino}` : path;
}

/** One skill file version's content: three fields, no closure, so thousands cost little. */
class ContentRef implements ContentSource {
  constructor(
    private readonly store: ContentStore,
    readonly path: string,
    readonly stamp: FileStamp | undefined,
  ) {}

  read(): SkillContent {
    return this.store.read(this.path, this.stamp);
  }
}

/**
 * Where every skill's template and examples come from when it is used. Content parsed in this
 * process is held in memory until the start-up index has it (`persisted`); after that, and for
 * skills listed from the index, it is read from the index on first use and kept in a bounded
 * cache. Without an index (the CLI, a development checkout) everything stays in memory.
 */
export class ContentStore {
  private readonly held = new Map<string, SkillContent>();
  private readonly cache = new Map<string, SkillContent>();
  private cached = 0;

  constructor(
    private readonly index: StartupIndex | undefined,
    private readonly reparse: Reparse,
    /** Told when a skill's content can no longer be had: its file changed and broke unseen. */
    private readonly lost: (path: string) => void = () => {},
  ) {}

  /** A source for content parsed just now: in memory until persisted. */
  hold(path: string, stamp: FileStamp | undefined, content: SkillContent): ContentSource {
    this.held.set(versionKey(path, stamp), content);
    return new ContentRef(this, path, stamp);
  }

  /** A source for a skill listed from the index: its content is read when first used. */
  indexed(path: string, stamp: FileStamp): ContentSource {
    return new ContentRef(this, path, stamp);
  }

  /** The index now has this file version: memory is no longer needed for it. */
  persisted(path: string, stamp: FileStamp): void {
    this.held.delete(versionKey(path, stamp));
  }

  /** Forgets content of file versions no load refers to any more. */
  retain(keep: ReadonlyArray<{ path: string; stamp?: FileStamp }>): void {
    if (this.held.size === 0 && this.cache.size === 0) return;
    const wanted = new Set(keep.map((k) => versionKey(k.path, k.stamp)));
    for (const key of this.held.keys()) if (!wanted.has(key)) this.held.delete(key);
    for (const [key, content] of this.cache) {
      if (wanted.has(key)) continue;
      this.cache.delete(key);
      this.cached -= sizeOf(content);
    }
  }

  private remember(key: string, content: SkillContent): void {
    this.cache.set(key, content);
    this.cached += sizeOf(content);
    for (const [oldest, old] of this.cache) {
      if (this.cached <= CACHE_BUDGET_CHARS || oldest === key) break;
      this.cache.delete(oldest);
      this.cached -= sizeOf(old);
    }
  }

  read(path: string, stamp: FileStamp | undefined): SkillContent {
    const key = versionKey(path, stamp);
    const held = this.held.get(key);
    if (held) return held;
    const cached = this.cache.get(key);
    if (cached) {
      // Most recently used last.
      this.cache.delete(key);
      this.cache.set(key, cached);
      return cached;
    }
    let content = stamp ? this.index?.content(path, stamp) : undefined;
    if (!content) {
      // Not in the index (deleted, or this version not written yet): the file itself, if it is
      // still the version that was listed.
      const again = this.reparse(path);
      if (again.content && sameStamp(again.stamp, stamp)) content = again.content;
    }
    if (!content) {
      this.lost(path);
      throw new SkillCentralError(
        "content-unavailable",
        "The skill's file changed on disk and can no longer be read as it was listed; it is being reloaded",
      );
    }
    this.remember(key, content);
    return content;
  }
}
