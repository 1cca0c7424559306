/** File system errors in words a person can act on, the code kept for searching. */

const WORDS: Record<string, string> = {
  EACCES: "permission denied",
  EPERM: "not permitted",
  ENOENT: "it no longer exists",
  ENOTDIR: "it is not a folder",
  EISDIR: "it is a folder",
  ENAMETOOLONG: "the path is too long",
  ELOOP: "too many levels of symbolic links",
  EMFILE: "too many open files",
};

/** A file system error in words a person can act on, with the code for searching: `permission denied (EACCES)`. */
export function describeFsError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code && WORDS[code]) return `${WORDS[code]} (${code})`;
  return error instanceof Error ? error.message : String(error);
}
