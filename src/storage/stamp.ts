/** A file's stamp (size, modification time, inode): what says it changed without reading it, as git's index does. */
import { statSync, type Stats } from "node:fs";

/** What identifies a file's content without reading it (as git's index does). */
export interface FileStamp {
  size: number;
  mtimeMs: number;
  ino: number;
}

export function stampOfStats(info: Stats): FileStamp {
  return { size: info.size, mtimeMs: info.mtimeMs, ino: info.ino };
}

/** The stamp of a regular file, or undefined (missing, unreadable, or not a regular file). */
export function statStamp(file: string): FileStamp | undefined {
  try {
    const info = statSync(file, { throwIfNoEntry: false });
    return info?.isFile() ? stampOfStats(info) : undefined;
  } catch {
    return undefined;
  }
}

export function sameStamp(a: FileStamp | undefined, b: FileStamp | undefined): boolean {
  return a !== undefined && b !== undefined && a.size === b.size && a.mtimeMs === b.mtimeMs && a.ino === b.ino;
}
