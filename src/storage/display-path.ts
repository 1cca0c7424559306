/**
 * How a path is shown to people (inside the project relative to it, a built-in skill as
 * `builtin:<path>`, a file of a git or url layer's verified copy as `<layer>@<commit>:<path>`),
 * decided once for the CLI, the log and the API. A copy's real place is a cache folder named by
 * commit and content hash, 200 columns that say nothing a person can act on: the layer and the
 * commit say which file it is, and `--verbose` shows the cache path when it is wanted.
 */
import { relative, sep } from "node:path";

export interface DisplayPlaces {
  /** Project root: paths inside it are shown relative to it (shorter, clickable in a terminal). */
  cwd: string;
  /** The built-in skills folder: its files are shown as `builtin:<path>` (inside a binary, its real path is a virtual one). */
  builtinDir?: string;
  /** Verified copies of git and url layers, each with the label its files are shown under (`team@0f1e1a4`). */
  copies?: readonly { dir: string; label: string }[];
}

function within(path: string, root: string): string | undefined {
  // The common case without relative()'s normalising: a path below the root as it was joined.
  if (path.length > root.length + 1 && path.startsWith(root) && path[root.length] === sep && !path.includes(`${sep}..`))
    return path.slice(root.length + 1);
  const rel = relative(root, path);
  return rel === "" || rel.startsWith("..") || rel.startsWith(sep) ? undefined : rel;
}

/** How a path is shown to people, decided in one place for the CLI, the server's log and the API. */
export function displayPath(file: string, places: DisplayPlaces): string {
  if (places.builtinDir !== undefined) {
    // The folder itself (doctor's layer table): inside a binary its real path is a virtual one.
    if (file === places.builtinDir) return "builtin:";
    const builtin = within(file, places.builtinDir);
    if (builtin !== undefined) return `builtin:${builtin.split(sep).join("/")}`;
  }
  for (const copy of places.copies ?? []) {
    // The copy's folder itself (doctor's layer table) is the layer at that commit.
    if (file === copy.dir) return `${copy.label}:`;
    const inCopy = within(file, copy.dir);
    if (inCopy !== undefined) return `${copy.label}:${inCopy.split(sep).join("/")}`;
  }
  return within(file, places.cwd) ?? file;
}
