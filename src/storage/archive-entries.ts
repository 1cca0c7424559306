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
 * Where a file of a skill may be written on every file system a client runs on: a name (path
 * segment) of at most 255 UTF-8 bytes (`NAME_MAX` on Linux and macOS) and a path of at most
 * 1,024 bytes, leaving room under `PATH_MAX` for the cache folder in front of it.
 */
export const PATH_LIMITS = { segmentBytes: 255, pathBytes: 1024 };

const utf8 = new TextEncoder();

/**
 * What makes `path` (relative, `/`-separated) a name a skill's file may not have, or undefined:
 * an absolute or drive path, a `..` segment, a backslash, a control character (tab and newline
 * included), an empty or "." segment, a name or path over `PATH_LIMITS`. The one rule for what
 * `sync` unpacks (here) and what `publish` writes (registry/well-known-index.ts).
 */
export function pathProblem(path: string): string | undefined {
  if (path.startsWith("/") || /^[A-Za-z]:/.test(path)) return "is an absolute path";
  const segments = path.split("/");
  if (segments.includes("..")) return 'leaves the skill\'s folder ("..")';
  if (/[\\\x00-\x1f\x7f]/.test(path)) return "has a backslash or a control character (a tab, a newline)";
  if (path !== "" && segments.some((s) => s === "" || s === ".")) return 'has an empty or "." segment';
  const long = segments.find((s) => utf8.encode(s).length > PATH_LIMITS.segmentBytes);
  if (long !== undefined) return `has a name over ${PATH_LIMITS.segmentBytes} bytes, longer than file systems allow`;
  if (utf8.encode(path).length > PATH_LIMITS.pathBytes) return `is a path over ${PATH_LIMITS.pathBytes} bytes`;
  return undefined;
}

/** The path of an entry, made relative (`./` and a folder's trailing `/` dropped) and checked by `pathProblem`. */
export function entryPath(raw: string): string {
  const path = raw.startsWith("/") ? raw : raw.replace(/^(\.\/)+/, "").replace(/\/+$/, "");
  const problem = pathProblem(path);
  if (problem !== undefined) throw new ArchiveRefused(`${JSON.stringify(raw)} ${problem}`);
  return path;
}

/** Names one file system may store as one: case-folded and Unicode-normalised. */
const key = (path: string) => path.normalize("NFC").toLowerCase();

/** Collects an archive's files while counting them against the limits. */
export class UnpackBudget {
  readonly files: UnpackedFile[] = [];
  private bytes = 0;
  /** Every file and folder so far, by `key`. */
  private readonly kinds = new Map<string, "file" | "folder">();

  constructor(private readonly limits: ArchiveLimits) {}

  /** What the remaining unpacked bytes allow (for a decompressor's output cap). */
  get remaining(): number {
    return this.limits.maxBytes - this.bytes;
  }

  folder(raw: string): void {
    const path = entryPath(raw);
    if (path !== "") this.place(path, true);
  }

  file(raw: string, bytes: Uint8Array): void {
    const path = entryPath(raw);
    if (path === "") throw new ArchiveRefused(`${JSON.stringify(raw)} is a file with no name`);
    // Two entries that differ only in case would overwrite each other on some file systems.
    if (this.kinds.get(key(path)) === "file") throw new ArchiveRefused(`${JSON.stringify(path)} appears twice`);
    this.place(path, false);
    if (this.files.length + 1 > this.limits.maxFiles)
      throw new ArchiveRefused(`it holds more than ${this.limits.maxFiles} files`);
    this.bytes += bytes.length;
    if (this.bytes > this.limits.maxBytes)
      throw new ArchiveRefused(`it unpacks to more than ${this.limits.maxBytes} bytes (a decompression bomb?)`);
    this.files.push({ path, bytes });
  }

  /**
   * Records `path` and the folders on its way, refusing a name that would be both a file and a
   * folder (`a` and `a/b`, `SKILL.md` and `SKILL.md/x`): no file system can hold both.
   */
  private place(path: string, folder: boolean): void {
    const segments = path.split("/");
    for (let i = 1; i <= segments.length; i++) {
      const at = segments.slice(0, i).join("/");
      const kind = i < segments.length || folder ? "folder" : "file";
      const seen = this.kinds.get(key(at));
      if (seen !== undefined && seen !== kind)
        throw new ArchiveRefused(`${JSON.stringify(at)} is both a file and a folder (${JSON.stringify(path)})`);
      this.kinds.set(key(at), kind);
    }
  }
}
