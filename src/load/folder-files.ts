/** A skill folder's published files, names, sizes and digests, worked out on first use so a start reads only its `SKILL.md`. */
import { dirname, sep } from "node:path";
import type { Diagnostic } from "../diagnostics.ts";
import type { FolderFiles, FolderWalk, SkillFile } from "../skill/skill.ts";
import { FOLDER_LIMITS } from "../storage/discover.ts";
import { servedFolderFiles } from "../storage/served-files.ts";
import { sameStamp, statStamp, type FileStamp } from "../storage/stamp.ts";
import type { DigestBook } from "./digest-book.ts";

/** A walk of the folder: its published names (the examples file is read by `skill-central test` only). */
function walkFolder(skillFile: string): FolderWalk {
  const { listing, names } = servedFolderFiles(dirname(skillFile), skillFile);
  const { leftOut, diagnostics } = listing;
  if (listing.filesRefused) {
    const over = diagnostics.find((d) => d.code === "skill-folder-too-large");
    return { names: [], leftOut, diagnostics, refused: over?.message ?? "skill folder over the file-count limit" };
  }
  return { names, leftOut, diagnostics };
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((name, i) => name === b[i]);
}

/**
 * One skill folder's published files with their names, sizes and digests, worked out on first use
 * (a client's `skills/list`, a file's read, `show`, or the server's idle time): the folder is
 * walked then, and each file's digest comes from the digest book, so a start reads nothing of a
 * folder but its `SKILL.md`. The answer, once given, stays: a reload that finds the folder changed
 * makes a new one (see `stillCurrent`).
 */
export class FolderFacts implements FolderFiles {
  private walked: FolderWalk | undefined;
  private answer: ReturnType<FolderFiles["read"]> | undefined;
  /** The version of each file the answer describes (undefined: the file could not be read). */
  private stamps: (FileStamp | undefined)[] = [];
  private staled = false;

  constructor(
    private readonly book: DigestBook,
    /** The skill's SKILL.md: the folder is the one holding it. */
    private readonly skillFile: string,
    /** Told what the folder's walk ran into (links left out, the file-count limit), once, when it is made. */
    private readonly onFindings: (skillFile: string, diagnostics: readonly Diagnostic[]) => void = () => {},
  ) {}

  get known(): boolean {
    return this.answer !== undefined;
  }

  walk(): FolderWalk {
    if (!this.walked) {
      this.walked = walkFolder(this.skillFile);
      if (this.walked.diagnostics.length > 0) this.onFindings(this.skillFile, this.walked.diagnostics);
    }
    return this.walked;
  }

  read(): ReturnType<FolderFiles["read"]> {
    this.answer ??= this.compute();
    return this.answer;
  }

  private pathOf(name: string): string {
    return this.skillFile.slice(0, this.skillFile.lastIndexOf(sep) + 1) + name.split("/").join(sep);
  }

  private compute(): ReturnType<FolderFiles["read"]> {
    const walked = this.walk();
    if (walked.refused !== undefined) return { refused: walked.refused };
    const files: SkillFile[] = [];
    this.stamps = [];
    let bytes = 0;
    for (const name of walked.names) {
      try {
        const version = this.book.current(this.pathOf(name), this.skillFile);
        files.push({ path: name, size: version.size, sha256: version.sha256 });
        this.stamps.push(version);
        bytes += version.size;
      } catch {
        // Gone or unreadable since the walk: left out, as the walk leaves out what it cannot read.
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
    for (const name of this.walked?.names ?? []) this.book.forget(this.pathOf(name));
    this.book.stale(this.skillFile);
  }

  /**
   * Whether what was worked out still describes the folder (for a reload: a walk of the folder,
   * then one stat per file): true when nothing was yet, since it will be worked out from the disk
   * as it is then.
   */
  stillCurrent(): boolean {
    if (this.staled) return false;
    const then = this.walked;
    if (!then) return true;
    const now = walkFolder(this.skillFile);
    if (now.refused !== then.refused || !sameList(now.names, then.names) || !sameList(now.leftOut, then.leftOut))
      return false;
    if (!this.answer) return true;
    return then.names.every((name, i) => {
      const stamp = statStamp(this.pathOf(name));
      const known = this.stamps[i];
      return known === undefined ? stamp === undefined : sameStamp(known, stamp);
    });
  }
}
