/**
 * A client's config file on disk, and the only code that writes one. Every change is: a backup
 * beside the file (same permissions), then a temporary file in the same folder renamed over the
 * original, so a crash leaves either the old file or the new one, never half of one.
 *
 * Files are compared and restored as bytes, never as decoded text: a file that is not valid
 * UTF-8 is refused when read (decoding it would replace its odd bytes for good), and a rollback
 * is only called done once the file holds its backup's exact bytes again.
 */
import {
  chmodSync,
  closeSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmdirSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
  type Stats,
} from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";

export interface ConfigFile {
  /** The path as the client knows it. */
  path: string;
  /**
   * Where the bytes are: the end of the chain of symbolic links when `path` is one (dotfile
   * managers), even when that target does not exist yet; else `path`.
   */
  real: string;
  exists: boolean;
  /** The content ("" when the file does not exist), decoded from `bytes`, a byte order mark included. */
  text: string;
  /** The exact bytes read (empty when the file does not exist). */
  bytes: Uint8Array;
  /** Permission bits, kept on every rewrite; undefined for a new file. */
  mode?: number;
}

export class FileProblem extends Error {
  override readonly name = "FileProblem";
}

/** The same limit as the kernel's (ELOOP): a longer chain is a loop. */
const MAX_LINK_HOPS = 40;

/** Where `path`'s bytes are: `path`, or the end of its chain of links, which may not exist yet. */
function linkTarget(path: string): string {
  let current = path;
  for (let hops = 0; hops <= MAX_LINK_HOPS; hops++) {
    try {
      if (!lstatSync(current).isSymbolicLink()) return hops === 0 ? path : realpathSync(current);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return current;
      throw error;
    }
    current = resolve(dirname(current), readlinkSync(current));
  }
  throw new FileProblem(`cannot read ${path}: more than ${MAX_LINK_HOPS} symbolic links in a row (a loop?)`);
}

/**
 * The offset of the first byte that is not part of well-formed UTF-8 (no overlong forms, no
 * surrogates, nothing above U+10FFFF: what a fatal TextDecoder accepts), or -1.
 */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  for (let i = 0; i < bytes.length; ) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    let length: number;
    let low = 0x80;
    let high = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) length = 2;
    else if (b >= 0xe0 && b <= 0xef) {
      length = 3;
      if (b === 0xe0) low = 0xa0;
      if (b === 0xed) high = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      length = 4;
      if (b === 0xf0) low = 0x90;
      if (b === 0xf4) high = 0x8f;
    } else return i;
    for (let k = 1; k < length; k++) {
      const c = bytes[i + k];
      if (c === undefined) return i;
      if (k === 1 ? c < low || c > high : c < 0x80 || c > 0xbf) return i;
    }
    i += length;
  }
  return -1;
}

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** The bytes as text, byte order mark kept; a FileProblem naming the first bad byte's place otherwise. */
function decode(bytes: Uint8Array, shown: string): string {
  const bad = firstInvalidUtf8(bytes);
  if (bad < 0) return utf8.decode(bytes);
  const lineStart = bytes.lastIndexOf(0x0a, bad - 1) + 1;
  const line = bytes.subarray(0, lineStart).filter((b) => b === 0x0a).length + 1;
  const column = utf8.decode(bytes.subarray(lineStart, bad)).length + 1;
  const hex = bytes[bad]!.toString(16).toUpperCase().padStart(2, "0");
  throw new FileProblem(
    `${shown}:${line}:${column}: not valid UTF-8 (byte 0x${hex} at byte offset ${bad}); skill-central edits only UTF-8 files, so the file is left untouched (save it as UTF-8, then run this again)`,
  );
}

/** Reads the file behind `path` (following links); `shown` is the name messages use. */
export function readConfigFile(path: string, shown = path): ConfigFile {
  let real: string;
  let bytes: Uint8Array;
  let mode: number;
  try {
    real = linkTarget(path);
    let stat: Stats;
    try {
      stat = statSync(real);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT")
        return { path, real, exists: false, text: "", bytes: new Uint8Array() };
      throw error;
    }
    if (!stat.isFile()) throw new FileProblem(`${path} is not a file`);
    mode = stat.mode & 0o7777;
    bytes = readFileSync(real);
  } catch (error) {
    if (error instanceof FileProblem) throw error;
    throw new FileProblem(`cannot read ${path}: ${(error as Error).message}`);
  }
  return { path, real, exists: true, text: decode(bytes, shown), bytes, mode };
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b);
}

/** The bytes at `real` now, or null when there is no file. */
function bytesNow(real: string): Uint8Array | null {
  try {
    return readFileSync(real);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

function stamp(now: Date): string {
  return now
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "Z");
}

/**
 * `<file>.skill-central-<UTC time>.bak` beside `path`, the name the client knows: for a symbolic
 * link, beside the link, not in the folder it points into (a dotfiles repository gets no stray
 * backups). Never replaces an earlier backup.
 */
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

/** Writes the bytes that were read to a new backup (a regular file) with the same permissions; returns its path. */
export function backUp(file: ConfigFile, now = new Date()): string {
  const target = backupPath(file, now);
  try {
    writeFileSync(target, file.bytes, { flag: "wx", mode: file.mode ?? 0o600 });
    if (file.mode !== undefined) chmodSync(target, file.mode);
  } catch (error) {
    throw new FileProblem(`cannot back up ${file.path} to ${target}: ${(error as Error).message}; nothing was written`);
  }
  return target;
}

export interface WriteResult {
  /** The first folder this write had to create, removed again by `undo`. */
  createdDir?: string;
  /** The bytes written, so `undo` can tell whether anyone changed the file since. */
  written?: Uint8Array;
}

/** A temporary file beside `real`, synced, then renamed over it. */
function replaceBytes(file: ConfigFile, bytes: Uint8Array): void {
  const dir = dirname(file.real);
  const temp = join(
    dir,
    `.${basename(file.real)}.skill-central-${process.pid}-${Math.random().toString(36).slice(2, 8)}.tmp`,
  );
  try {
    const fd = openSync(temp, "wx", file.mode ?? 0o644);
    try {
      writeSync(fd, bytes);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    // The umask may have narrowed the mode given to open; the original's bits win.
    if (file.mode !== undefined) chmodSync(temp, file.mode);
    renameSync(temp, file.real);
  } catch (error) {
    rmSync(temp, { force: true });
    throw new FileProblem(`cannot write ${file.path}: ${(error as Error).message}`);
  }
}

/**
 * Replaces the file's content atomically (through a link, its target, created with its folders
 * when missing). Refuses when the file changed since it was read (the client may be writing it
 * right now): the caller reads again and retries, or says so.
 */
export function writeAtomically(file: ConfigFile, text: string): WriteResult {
  let createdDir: string | undefined;
  try {
    createdDir = mkdirSync(dirname(file.real), { recursive: true }) ?? undefined;
  } catch (error) {
    throw new FileProblem(`cannot write ${file.path}: ${(error as Error).message}`);
  }
  const current = readConfigFile(file.path);
  if (current.exists !== file.exists || current.real !== file.real || !sameBytes(current.bytes, file.bytes)) {
    throw new FileProblem(
      `${file.path} changed while skill-central was editing it; nothing was written (run the command again)`,
    );
  }
  const written = new TextEncoder().encode(text);
  replaceBytes(file, written);
  return { ...(createdDir && { createdDir }), written };
}

/** What `undo` did: put the file back, or left it (and the backup) alone, and why (a phrase that follows the file's name). */
export type Undone = { restored: true } | { restored: false; reason: string };

/**
 * Puts the file back as it was before `writeAtomically`: the backup's exact bytes, or no file
 * at all when there was none, with any folders that write created. The backup is removed only
 * once the file holds the same bytes as the backup, compared byte for byte; otherwise it stays.
 * When the file no longer holds what this write put there (another program wrote it meanwhile),
 * that program's content is not overwritten: the file and the backup are both left as they are.
 */
export function undo(file: ConfigFile, backup: string | undefined, written: WriteResult): Undone {
  try {
    const now = bytesNow(file.real);
    if (written.written && (now === null || !sameBytes(now, written.written))) {
      return {
        restored: false,
        reason: "was changed by another program after skill-central wrote it, so it was not put back",
      };
    }
    if (file.exists) {
      const original = backup ? readFileSync(backup) : file.bytes;
      replaceBytes(file, original);
      const after = bytesNow(file.real);
      if (after === null || !sameBytes(after, original))
        return { restored: false, reason: "does not hold its backup's bytes after restoring it" };
      if (backup) rmSync(backup, { force: true });
      return { restored: true };
    }
    rmSync(file.real, { force: true });
  } catch (error) {
    return { restored: false, reason: `could not be put back (${(error as Error).message})` };
  }
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
  return { restored: true };
}
