import { Glob } from "bun";
import { readdirSync, realpathSync, statSync, type Dirent } from "node:fs";
import { relative, sep } from "node:path";
import type { Diagnostic } from "../diagnostics.ts";
import { describeFsError } from "./fs-errors.ts";
import { NOT_A_FILE_HINT } from "./read.ts";

const BROKEN_LINK_HINT = "point the link at a file or folder that exists, or remove it";

/** Skill files: YAML or JSON, at any depth. */
const SKILL_FILES = new Glob("*.{yaml,yml,json}");

/** `_template.yaml`, `.draft.yaml` and anything inside `_drafts/` or `.git/` are not skills. */
export function isIgnoredName(name: string): boolean {
  return name.startsWith("_") || name.startsWith(".");
}

export interface Discovery {
  /** Absolute paths of the skill files found (as reached, not resolved), sorted. */
  files: string[];
  /** Folders that could not be read, links not followed, special files skipped. */
  diagnostics: Diagnostic[];
}

/**
 * The real path of a folder. The binary's embedded file system (the built-in skills) answers
 * `readdir` and `stat` but not `realpath`; it has no links, so its paths are already real.
 */
function realpathOrSelf(dir: string): string {
  try {
    return realpathSync(dir);
  } catch (error) {
    if (statSync(dir).isDirectory()) return dir;
    throw error;
  }
}

function inside(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith("..") && !rel.startsWith(sep) && rel !== "..");
}

/**
 * Every skill file under a layer folder, walked by hand rather than by a recursive glob so that
 * nothing the file system can do stops the walk or makes it lie:
 * - a folder that cannot be read (permissions, a path over the system's limit, one deleted
 *   mid-walk) is one warning, and the rest of the layer loads;
 * - symbolic links are followed once per real path: a link back into an enclosing folder (a
 *   loop) or to a folder already walked is a warning, not a second copy of every skill;
 * - a link that leaves the layer is not followed: nothing outside a layer is ever read;
 * - FIFOs, sockets and devices named like skill files are never opened (a FIFO would block a
 *   read forever).
 * Files come back sorted, so nothing downstream depends on the order of the file system.
 */
export function discoverSkillFiles(dir: string): Discovery {
  const files: string[] = [];
  const diagnostics: Diagnostic[] = [];
  const warn = (code: string, file: string, message: string, hint?: string) =>
    diagnostics.push({ severity: "warning", code, file, message, ...(hint && { hint }) });
  let realRoot: string;
  try {
    realRoot = realpathOrSelf(dir);
  } catch (error) {
    warn("unreadable-folder", dir, `cannot read the layer folder: ${describeFsError(error)}`, "fix its permissions, or point the layer at another folder");
    return { files, diagnostics };
  }
  const walkedDirs = new Map<string, string>([[realRoot, dir]]);
  // Real paths of the files found: checked only for files reached through a link (a walk
  // without links cannot meet a file twice, since every real folder is walked once).
  const realFiles: string[] = [];
  let seenFiles: Set<string> | undefined;
  const queue: { path: string; real: string; viaLink: boolean }[] = [{ path: dir, real: realRoot, viaLink: false }];
  // Links are followed after every real folder is known, so a folder is reached by its own path
  // when it has one, and a link to it is the duplicate.
  const links: { path: string; real: string; name: string }[] = [];
  const addFile = (full: string, realFile: string, viaLink: boolean) => {
    if (viaLink) {
      seenFiles ??= new Set(realFiles);
      if (seenFiles.has(realFile)) return;
      seenFiles.add(realFile);
    }
    realFiles.push(realFile);
    files.push(full);
  };
  const followLink = ({ path: full, real: parentReal, name }: { path: string; real: string; name: string }) => {
    let target: string;
    try {
      target = realpathSync(full);
    } catch (error) {
      warn("broken-link", full, `link not followed: ${describeFsError(error)}`, BROKEN_LINK_HINT);
      return;
    }
    if (!inside(target, realRoot)) {
      warn("link-outside-layer", full, `link not followed: it points outside the layer (${target})`, "copy the file into the layer, or declare its folder as a layer of its own");
      return;
    }
    let info;
    try {
      info = statSync(target);
    } catch (error) {
      warn("broken-link", full, `link not followed: ${describeFsError(error)}`, BROKEN_LINK_HINT);
      return;
    }
    if (info.isDirectory()) {
      if (inside(parentReal, target)) {
        warn("link-loop", full, `link not followed: it loops back to ${walkedDirs.get(target) ?? target}, a folder that contains it`, "remove the link");
        return;
      }
      const earlier = walkedDirs.get(target);
      if (earlier !== undefined) {
        warn("link-duplicate", full, `link not followed: it leads to ${earlier}, which is already part of this layer`, "remove the link; every skill under it is loaded once already");
        return;
      }
      walkedDirs.set(target, full);
      queue.push({ path: full, real: target, viaLink: true });
    } else if (info.isFile() && SKILL_FILES.match(name)) {
      addFile(full, target, true);
    }
  };
  while (queue.length > 0 || links.length > 0) {
    if (queue.length === 0) {
      // In name order, so which of two links to one folder is followed does not depend on readdir.
      links.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
      followLink(links.shift()!);
      continue;
    }
    const { path, real, viaLink } = queue.shift()!;
    let entries: Dirent[];
    try {
      entries = readdirSync(path, { withFileTypes: true });
    } catch (error) {
      warn("unreadable-folder", path, `cannot read this folder: ${describeFsError(error)}; its skills are not loaded`, "fix its permissions, or move it out of the layer");
      continue;
    }
    for (const entry of entries) {
      const name = entry.name;
      if (isIgnoredName(name)) continue;
      // Names from readdir hold no separator: plain concatenation is join() without its cost.
      const full = path + sep + name;
      if (entry.isDirectory()) {
        const sub = real + sep + name;
        walkedDirs.set(sub, full);
        queue.push({ path: full, real: sub, viaLink });
      } else if (entry.isFile()) {
        if (SKILL_FILES.match(name)) addFile(full, real + sep + name, viaLink);
      } else if (entry.isSymbolicLink()) {
        links.push({ path: full, real, name });
      } else if (SKILL_FILES.match(name)) {
        warn("not-a-file", full, "skipped without opening it: not a regular file (a FIFO, socket or device)", NOT_A_FILE_HINT);
      }
    }
  }
  files.sort();
  return { files, diagnostics };
}
