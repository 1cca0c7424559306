/**
 * What may come out of a skill's archive (tar-gz.ts, zip.ts): regular files at safe relative
 * paths, within caps. Every entry is checked here before any byte reaches the disk.
 */

/** A file of a skill folder: its path relative to the folder, `/`-separated, and its bytes. */
export interface UnpackedFile {
  path: string;
  bytes: Uint8Array;
}

export interface ArchiveLimits {
  /** Files in one archive. */
  maxFiles: number;
  /** Unpacked bytes of all its files together. */
  maxBytes: number;
}

/** The MCP skills extension's host limits (512 files, 16 MiB per skill): what a skill may hold. */
export const DEFAULT_ARCHIVE_LIMITS: ArchiveLimits = { maxFiles: 512, maxBytes: 16 * 1024 * 1024 };

/** An archive that is not unpacked, with the reason (an entry, a cap, a damaged stream). */
export class ArchiveRefused extends Error {
  override readonly name = "ArchiveRefused";
}

/**
 * The path of an entry, made relative and checked: `./` and a folder's trailing `/` are dropped;
 * an absolute or drive path, a `..` segment, a backslash, a control character and an empty
 * segment are refused.
 */
export function entryPath(raw: string): string {
  const path = raw.replace(/^(\.\/)+/, "").replace(/\/+$/, "");
  const shown = JSON.stringify(raw);
  if (raw.startsWith("/") || /^[A-Za-z]:/.test(raw)) throw new ArchiveRefused(`${shown} is an absolute path`);
  const segments = path.split("/");
  if (segments.includes("..")) throw new ArchiveRefused(`${shown} leaves the skill's folder ("..")`);
  if (/[\\\x00-\x1f\x7f]/.test(path)) throw new ArchiveRefused(`${shown} has a backslash or a control character`);
  if (path !== "" && segments.some((s) => s === "" || s === "."))
    throw new ArchiveRefused(`${shown} has an empty or "." segment`);
  return path;
}

/** Collects an archive's files while counting them against the limits. */
export class UnpackBudget {
  readonly files: UnpackedFile[] = [];
  private bytes = 0;
  private readonly seen = new Set<string>();

  constructor(private readonly limits: ArchiveLimits) {}

  /** What the remaining unpacked bytes allow (for a decompressor's output cap). */
  get remaining(): number {
    return this.limits.maxBytes - this.bytes;
  }

  folder(raw: string): void {
    entryPath(raw);
  }

  file(raw: string, bytes: Uint8Array): void {
    const path = entryPath(raw);
    if (path === "") throw new ArchiveRefused(`${JSON.stringify(raw)} is a file with no name`);
    // Two entries that differ only in case would overwrite each other on some file systems.
    const key = path.normalize("NFC").toLowerCase();
    if (this.seen.has(key)) throw new ArchiveRefused(`${JSON.stringify(path)} appears twice`);
    this.seen.add(key);
    if (this.files.length + 1 > this.limits.maxFiles)
      throw new ArchiveRefused(`it holds more than ${this.limits.maxFiles} files`);
    this.bytes += bytes.length;
    if (this.bytes > this.limits.maxBytes)
      throw new ArchiveRefused(`it unpacks to more than ${this.limits.maxBytes} bytes (a decompression bomb?)`);
    this.files.push({ path, bytes });
  }
}
