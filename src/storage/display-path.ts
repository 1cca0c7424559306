/** How a path is shown to people (inside the project relative to it, a built-in skill as `builtin:<path>`), decided once for the CLI, the log and the API. */
import { relative, sep } from "node:path";

export interface DisplayPlaces {
  /** Project root: paths inside it are shown relative to it (shorter, clickable in a terminal). */
  cwd: string;
  /** The built-in skills folder: its files are shown as `builtin:<path>` (inside a binary, its real path is a virtual one). */
  builtinDir?: string;
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
  return within(file, places.cwd) ?? file;
}
