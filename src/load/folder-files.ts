import { sep } from "node:path";
import type { FolderFiles, SkillFile } from "../skill/skill.ts";
import { FOLDER_LIMITS } from "../storage/discover.ts";
import { sameStamp, statStamp, type FileStamp } from "../storage/stamp.ts";
import type { DigestBook } from "./digest-book.ts";

type Answer = { files: readonly SkillFile[] } | { refused: string };

/**
 * One skill folder's published files with their sizes and digests, worked out on first use (a
 * client's `skills/list`, a file's read, `show`, or the server's idle time) from the digest book,
 * so a start reads nothing of a folder but its `SKILL.md`. The answer, once given, stays: a
 * reload that finds a file changed makes a new one (see `stillCurrent`).
 */
export class FolderFacts implements FolderFiles {
  private answer: Answer | undefined;
  /** The version of each file the answer describes (undefined: the file could not be read). */
  private stamps: (FileStamp | undefined)[] = [];
  private staled = false;

  constructor(
    private readonly book: DigestBook,
    /** The skill's SKILL.md: the folder is the one holding it. */
    private readonly skillFile: string,
    /** Relative paths, SKILL.md first. */
    private readonly names: readonly string[],
  ) {}

  get known(): boolean {
    return this.answer !== undefined;
  }

  read(): Answer {
    this.answer ??= this.compute();
    return this.answer;
  }

  private pathOf(name: string): string {
    return this.skillFile.slice(0, this.skillFile.lastIndexOf(sep) + 1) + name.split("/").join(sep);
  }

  private compute(): Answer {
    const files: SkillFile[] = [];
    this.stamps = [];
    let bytes = 0;
    for (const name of this.names) {
      try {
        const version = this.book.current(this.pathOf(name), this.skillFile);
        files.push({ path: name, size: version.size, sha256: version.sha256 });
        this.stamps.push(version);
        bytes += version.size;
      } catch {
        // Gone or unreadable since the listing: left out, as discovery leaves out what it cannot read.
        this.stamps.push(undefined);
      }
    }
    if (bytes > FOLDER_LIMITS.bytes)
      return {
        refused: `skill folder over the limit of ${FOLDER_LIMITS.bytes / 1048576} MiB: it holds ${(bytes / 1048576).toFixed(1)} MiB`,
      };
    return { files };
  }

  stale(): void {
    if (this.staled) return;
    this.staled = true;
    for (const name of this.names) this.book.forget(this.pathOf(name));
    this.book.stale(this.skillFile);
  }

  /**
   * Whether this answer still describes the folder (one stat per file, for a reload): true when
   * none was given yet, since it will be worked out from the disk as it is then.
   */
  stillCurrent(): boolean {
    if (this.staled) return false;
    if (!this.answer) return true;
    return this.names.every((name, i) => {
      const now = statStamp(this.pathOf(name));
      const then = this.stamps[i];
      return then === undefined ? now === undefined : sameStamp(then, now);
    });
  }
}
