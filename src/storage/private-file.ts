/**
 * A file only its owner may read, in a folder only its owner may open: the usage history says
 * which skills a person used, when, and from which client, which is nobody else's business on a
 * shared machine. The file is made 0600 before anything is written to it (SQLite gives the files
 * it adds beside a database, `-wal` and `-shm`, the database file's own mode), and the folders
 * made for it are 0700. On Windows, where modes mean little, this does nothing harmful.
 */
import { chmodSync, closeSync, mkdirSync, openSync, statSync } from "node:fs";
import { dirname } from "node:path";

const PRIVATE_FILE = 0o600;
const PRIVATE_FOLDER = 0o700;
/** Files SQLite keeps beside a WAL database: an older version made them 0644. */
const SIDE_FILES = ["-wal", "-shm"];

/**
 * Narrows `path` to `mode` when anyone but its owner may use it; never widens, never fails, and
 * only ever touches a file (or, for a folder's mode, a folder): a store path that names a folder
 * by mistake keeps its mode.
 */
function narrow(path: string, mode: number): void {
  try {
    const stat = statSync(path);
    const right = mode === PRIVATE_FOLDER ? stat.isDirectory() : stat.isFile();
    if (right && (stat.mode & 0o077) !== 0) chmodSync(path, mode);
  } catch {
    // Absent, or not ours to change: opening it says what is wrong, if anything.
  }
}

/**
 * Makes `file` exist, empty and 0600, with its folders created 0700 (an empty file is a valid
 * empty SQLite database). A file that exists is never rewritten, only narrowed to 0600, with its
 * `-wal` and `-shm`. An existing folder is left as it is unless `privateFolder` says it is
 * skill-central's own (the default state folder), which an older version made 0755.
 */
export function preparePrivateFile(file: string, options: { privateFolder?: boolean } = {}): void {
  const folder = dirname(file);
  mkdirSync(folder, { recursive: true, mode: PRIVATE_FOLDER });
  if (options.privateFolder) narrow(folder, PRIVATE_FOLDER);
  try {
    // O_EXCL: another process creating it at the same moment wins, and its file is used as is.
    closeSync(openSync(file, "wx", PRIVATE_FILE));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  for (const suffix of ["", ...SIDE_FILES]) narrow(`${file}${suffix}`, PRIVATE_FILE);
}
