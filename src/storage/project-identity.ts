/**
 * Which project a use belongs to, as a shared store may keep it: never a path in clear (a team's
 * database would learn every user's folder layout and user names), but a stable identity, the
 * same in every process and on every run: `dir:` and the first 16 hex digits of the SHA-256 of
 * the project folder's real path (symbolic links resolved, so two spellings of one folder are one
 * project), or, for an HTTP server that has a public name, `http:` and that name.
 */
import { realpathSync } from "node:fs";
import { sha256Hex } from "./digest.ts";

/** The identity of the project in `folder`. */
export function folderProject(folder: string): string {
  let real = folder;
  try {
    real = realpathSync(folder);
  } catch {
    // A folder that is gone still names its project as written.
  }
  return `dir:${sha256Hex(real).slice(0, 16)}`;
}

/** The identity of an HTTP server by its public URL: host and path, no scheme, query or credentials. */
export function serverProject(publicUrl: string): string | undefined {
  try {
    const url = new URL(publicUrl);
    return `http:${url.host}${url.pathname.replace(/\/+$/, "")}`;
  } catch {
    return undefined;
  }
}
