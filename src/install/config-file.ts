import { chmodSync, closeSync, copyFileSync, fsyncSync, lstatSync, mkdirSync, openSync, readFileSync, realpathSync, renameSync, rmdirSync, rmSync, statSync, writeSync } from "node:fs";
import { basename, dirname, join, relative } from "node:path";

/**
 * A client's config file on disk, and the only code that writes one. Every change is: a backup
 * beside the file (same permissions), then a temporary file in the same folder renamed over the
 * original, so a crash leaves either the old file or the new one, never half of one.
 */

export interface ConfigFile {
  /** The path as the client knows it. */
  path: string;
  /** Where the bytes are: the target when `path` is a symbolic link (dotfile managers), else `path`. */
  real: string;
  exists: boolean;
  /** The content ("" when the file does not exist). */
  text: string;
  /** Permission bits, kept on every rewrite; undefined for a new file. */
  mode?: number;
}

export class FileProblem extends Error {
  override readonly name = "FileProblem";
}

export function readConfigFile(path: string): ConfigFile {
  let real = path;
  try {
    if (lstatSync(path).isSymbolicLink()) real = realpathSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { path, real, exists: false, text: "" };
    throw new FileProblem(`cannot read ${path}: ${(error as Error).message}`);
  }
  try {
    const stat = statSync(real);
    if (!stat.isFile()) throw new FileProblem(`${path} is not a file`);
    return { path, real, exists: true, text: readFileSync(real, "utf8"), mode: stat.mode & 0o7777 };
  } catch (error) {
    if (error instanceof FileProblem) throw error;
    throw new FileProblem(`cannot read ${path}: ${(error as Error).message}`);
  }
}

function stamp(now: Date): string {
  return now.toISOString().replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z");
}

/** `<file>.skill-central-<UTC time>.bak` beside the file; never replaces an earlier backup. */
export function backupPath(file: ConfigFile, now: Date): string {
  const base = `${file.path}.skill-central-${stamp(now)}`;
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? `${base}.bak` : `${base}-${n}.bak`;
    try {
      lstatSync(candidate);
    } catch {
      return candidate;
    }
  }
}

/** Copies the file's current bytes to a new backup with the same permissions; returns its path. */
export function backUp(file: ConfigFile, now = new Date()): string {
  const target = backupPath(file, now);
  copyFileSync(file.real, target);
  if (file.mode !== undefined) chmodSync(target, file.mode);
  return target;
}

export interface WriteResult {
  /** The first folder this write had to create, removed again by `undo`. */
  createdDir?: string;
}

/**
 * Replaces the file's content atomically. Refuses when the file changed since it was read (the
 * client may be writing it right now): the caller reads again and retries, or says so.
 */
export function writeAtomically(file: ConfigFile, text: string): WriteResult {
  const dir = dirname(file.real);
  const createdDir = mkdirSync(dir, { recursive: true }) ?? undefined;
  const current = readConfigFile(file.path);
  if (current.exists !== file.exists || current.text !== file.text) {
    throw new FileProblem(`${file.path} changed while skill-central was editing it; nothing was written (run the command again)`);
  }
  const temp = join(dir, `.${basename(file.real)}.skill-central-${process.pid}-${Math.random().toString(36).slice(2, 8)}.tmp`);
  const fd = openSync(temp, "wx", file.mode ?? 0o644);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    // The umask may have narrowed the mode given to open; the original's bits win.
    if (file.mode !== undefined) chmodSync(temp, file.mode);
    renameSync(temp, file.real);
  } catch (error) {
    rmSync(temp, { force: true });
    throw new FileProblem(`cannot write ${file.path}: ${(error as Error).message}`);
  }
  return createdDir ? { createdDir } : {};
}

/**
 * Puts the file back as it was before `writeAtomically`: the backup's bytes (the backup is then
 * removed, since nothing changed), or no file at all when there was none, with any folders that
 * write created.
 */
export function undo(file: ConfigFile, backup: string | undefined, written: WriteResult): void {
  if (file.exists) {
    const now = readConfigFile(file.path);
    writeAtomically(now, backup ? readFileSync(backup, "utf8") : file.text);
    if (backup) rmSync(backup, { force: true });
    return;
  }
  rmSync(file.real, { force: true });
  if (written.createdDir) {
    // Remove the folders this write created, innermost first, but only while they are empty.
    for (let dir = dirname(file.real); ; dir = dirname(dir)) {
      try {
        rmdirSync(dir);
      } catch {
        break;
      }
      if (dir === written.createdDir || relative(written.createdDir, dir).startsWith("..")) break;
    }
  }
}
