/**
 * Finding a layer's skills: its skill files and Agent Skills folders, from folder listings alone
 * (a folder's own files are listed when first needed), with links, ignored names and limits.
 */
import { Glob } from "bun";
import { readdirSync, realpathSync, statSync, type Dirent, type Stats } from "node:fs";
import { relative, sep } from "node:path";
import type { Diagnostic } from "../diagnostics.ts";
import { describeFsError } from "./fs-errors.ts";
import { isEvalFileName } from "./eval-files.ts";
import { NOT_A_FILE_HINT } from "./read.ts";

const BROKEN_LINK_HINT = "point the link at a file or folder that exists, or remove it";

/** Skill files: YAML or JSON, at any depth; a skill file's eval data beside it (`greet.evals.json`) is not one. */
const SKILL_FILES = new Glob("*.{yaml,yml,json}");
function isSkillFileName(name: string): boolean {
  return SKILL_FILES.match(name) && !isEvalFileName(name);
}

/** In a layer, `_template.yaml`, `.draft.yaml` and anything inside `_drafts/` or `.git/` are not skills (inside a skill folder, see isLeftOutOfSkill). */
export function isIgnoredName(name: string): boolean {
  return name.startsWith("_") || name.startsWith(".");
}

/**
 * An Agent Skills folder as a start sees it: a folder holding `SKILL.md` (or `skill.md`), from
 * its own listing alone. What lies deeper (its supporting files) is listed when first needed
 * (`listSkillFolder`), never at start.
 */
export interface FoundFolder {
  dir: string;
  /** The `SKILL.md` file's absolute path. */
  skillFile: string;
  /** The names of the regular files directly in the folder, hidden names left out, in listing order. */
  topFiles: readonly string[];
}

/** Every file of a skill folder, from a walk of the whole folder (see listSkillFolder). */
export interface FolderListing {
  /** Every regular file of the folder, `SKILL.md` included (first), sorted by relative path. */
  files: FolderFile[];
  /** Links, special files, unreadable folders and the file-count limit the walk ran into (those files are left out). */
  diagnostics: Diagnostic[];
  /** Hidden names left out of the skill (`.DS_Store`, `.git/`: a folder ends in `/` and is not walked), sorted. */
  leftOut: string[];
  /** Over the file-count limit (see FOLDER_LIMITS): the folder's files are refused. */
  filesRefused: boolean;
}

/** A file of a skill folder as its folder's listing names it: never opened, not even stat'ed, by discovery. */
export interface FolderFile {
  /** Relative to the skill folder, `/`-separated. */
  rel: string;
  abs: string;
}

export interface Discovery {
  /** Absolute paths of the YAML/JSON skill files found (as reached, not resolved), sorted. */
  files: string[];
  /** Agent Skills folders, sorted by folder. */
  folders: FoundFolder[];
  /** Folders that could not be read, links not followed, special files skipped. */
  diagnostics: Diagnostic[];
}

/**
 * What a skill folder may hold: the MCP skills extension has hosts accept up to 512 files and
 * 16 MiB per skill, so a larger folder is refused rather than served to hosts that reject it:
 * both found out where the folder's files are first needed (folder-files.ts), never at start.
 */
export const FOLDER_LIMITS = { files: 512, bytes: 16 * 1024 * 1024 } as const;

/** The folder's SKILL.md entry; `SKILL.md` wins over `skill.md` where a file system holds both. */
function skillMdEntry(entries: readonly Dirent[]): Dirent | undefined {
  let lower: Dirent | undefined;
  for (const e of entries) {
    if (e.name === "SKILL.md" && e.isFile()) return e;
    if (e.name === "skill.md" && e.isFile()) lower = e;
  }
  return lower;
}

/**
 * Whether a name inside a skill folder is left out of the skill: only hidden names (`.git/`,
 * `.DS_Store`, an editor's `.swp`, a `.env`), which are tooling or secrets, never the skill.
 * `_` names are kept: `scripts/__init__.py` is part of a Python package a host runs.
 */
export function isLeftOutOfSkill(name: string): boolean {
  return name.startsWith(".");
}

/**
 * The files of a skill folder, walked without following any link: a link in a skill folder could
 * lead anywhere, and a host is told exactly which files make the skill. Links, special files and
 * unreadable folders are left out with a warning; hidden names are left out and listed in
 * `leftOut`, for `show` and `validate` to name. Only folders are read (their listings): no file
 * is opened or stat'ed. Called when the folder's files are first needed, not by discovery.
 */
export function listSkillFolder(dir: string, skillFile: string): FolderListing {
  const files: FolderFile[] = [];
  const leftOut: string[] = [];
  const diagnostics: Diagnostic[] = [];
  const warn = (code: string, file: string, message: string, hint?: string) =>
    diagnostics.push({ severity: "warning", code, file, message, ...(hint && { hint }) });
  const stack: { path: string; rel: string }[] = [{ path: dir, rel: "" }];
  // Past the file limit the walk stops: the skill is refused, and a huge tree is not walked for nothing.
  while (stack.length > 0 && files.length <= FOLDER_LIMITS.files) {
    const { path, rel } = stack.pop()!;
    let entries: Dirent[];
    try {
      entries = readdirSync(path, { withFileTypes: true });
    } catch (error) {
      warn(
        "unreadable-folder",
        path,
        `cannot read this folder of the skill: ${describeFsError(error)}; its files are left out`,
      );
      continue;
    }
    for (const entry of entries) {
      const name = entry.name;
      const full = path + sep + name;
      const relPath = rel === "" ? name : `${rel}/${name}`;
      if (isLeftOutOfSkill(name)) {
        leftOut.push(entry.isDirectory() ? `${relPath}/` : relPath);
        continue;
      }
      if (entry.isDirectory()) stack.push({ path: full, rel: relPath });
      else if (entry.isSymbolicLink()) {
        warn(
          "link-in-skill-folder",
          full,
          "left out of the skill: links are not followed inside a skill folder",
          "copy the file into the folder instead",
        );
      } else if (!entry.isFile()) {
        warn(
          "not-a-file",
          full,
          "left out of the skill without opening it: not a regular file (a FIFO, socket or device)",
        );
      } else files.push({ rel: relPath, abs: full });
    }
  }
  files.sort((a, b) =>
    a.abs === skillFile ? -1 : b.abs === skillFile ? 1 : a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0,
  );
  leftOut.sort();
  const filesRefused = files.length > FOLDER_LIMITS.files;
  if (filesRefused) {
    diagnostics.push({
      severity: "error",
      code: "skill-folder-too-large",
      file: skillFile,
      message: `skill folder over the limit of ${FOLDER_LIMITS.files} files and ${FOLDER_LIMITS.bytes / 1048576} MiB: it holds more than ${FOLDER_LIMITS.files} files`,
      hint: "move large assets out of the skill, or split it",
    });
  }
  return { files, diagnostics, leftOut, filesRefused };
}

/**
 * The real path of a folder. The binary's embedded file system (the built-in skills) answers
 * `readdir` and `stat` but not `realpath`; it has no links, so its paths are already real.
 */
export function realpathOrSelf(dir: string): string {
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

/** The regular files directly in a skill folder, hidden names left out: all a start looks at beside SKILL.md. */
function topFilesOf(entries: readonly Dirent[]): string[] {
  const names: string[] = [];
  for (const e of entries) if (e.isFile() && !isLeftOutOfSkill(e.name)) names.push(e.name);
  return names;
}

/** The skill folder at `dir` as discovery would find it, or undefined when it holds no SKILL.md (any more). */
export function skillFolderAt(dir: string): FoundFolder | undefined {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return undefined;
  }
  const skillMd = skillMdEntry(entries);
  if (!skillMd) return undefined;
  const skillFile = dir + sep + skillMd.name;
  return { dir, skillFile, topFiles: topFilesOf(entries) };
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
 * - another layer's folder inside this one (`inner`) is that layer's: it is not walked, by its
 *   path or through a link, and a skill folder holding one is refused (a file belongs to one layer);
 * Files come back sorted, so nothing downstream depends on the order of the file system.
 */
export function discoverSkillFiles(dir: string, inner: InnerLayers = new Map()): Discovery {
  let realRoot: string;
  try {
    realRoot = realpathOrSelf(dir);
  } catch (error) {
    const diagnostic = warning(
      "unreadable-folder",
      dir,
      `cannot read the layer folder: ${describeFsError(error)}`,
      "fix its permissions, or point the layer at another folder",
    );
    return { files: [], folders: [], diagnostics: [diagnostic] };
  }
  const walk = new LayerWalk(dir, realRoot, inner);
  walk.run();
  const { files, folders, diagnostics } = walk;
  files.sort();
  folders.sort((a, b) => (a.dir < b.dir ? -1 : a.dir > b.dir ? 1 : 0));
  return { files, folders, diagnostics };
}

/** Other layers' folders inside a layer's folder, by real path, with the name of the layer each is. */
export type InnerLayers = ReadonlyMap<string, string>;

function warning(code: string, file: string, message: string, hint?: string): Diagnostic {
  return { severity: "warning", code, file, message, ...(hint && { hint }) };
}

interface QueuedFolder {
  path: string;
  real: string;
  viaLink: boolean;
}

interface PendingLink {
  path: string;
  /** The real path of the folder holding the link. */
  real: string;
  name: string;
}

/** One walk of a layer folder (see discoverSkillFiles): what it found, and what is left to visit. */
class LayerWalk {
  readonly files: string[] = [];
  readonly folders: FoundFolder[] = [];
  readonly diagnostics: Diagnostic[] = [];
  private readonly realRoot: string;
  private readonly walkedDirs: Map<string, string>;
  // Real paths of the files found: checked only for files reached through a link (a walk
  // without links cannot meet a file twice, since every real folder is walked once).
  private readonly realFiles: string[] = [];
  private seenFiles: Set<string> | undefined;
  private readonly queue: QueuedFolder[];
  // Links are followed after every real folder is known, so a folder is reached by its own path
  // when it has one, and a link to it is the duplicate.
  private readonly links: PendingLink[] = [];
  private readonly inner: InnerLayers;

  constructor(dir: string, realRoot: string, inner: InnerLayers) {
    this.realRoot = realRoot;
    this.inner = inner;
    this.walkedDirs = new Map([[realRoot, dir]]);
    this.queue = [{ path: dir, real: realRoot, viaLink: false }];
  }

  run(): void {
    const { queue, links } = this;
    while (queue.length > 0 || links.length > 0) {
      if (queue.length === 0) {
        // In name order, so which of two links to one folder is followed does not depend on readdir.
        links.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
        this.followLink(links.shift()!);
        continue;
      }
      this.readFolder(queue.shift()!);
    }
  }

  private warn(code: string, file: string, message: string, hint?: string): void {
    this.diagnostics.push(warning(code, file, message, hint));
  }

  private readFolder({ path, real, viaLink }: QueuedFolder): void {
    let entries: Dirent[];
    try {
      entries = readdirSync(path, { withFileTypes: true });
    } catch (error) {
      this.warn(
        "unreadable-folder",
        path,
        `cannot read this folder: ${describeFsError(error)}; its skills are not loaded`,
        "fix its permissions, or move it out of the layer",
      );
      return;
    }
    // A folder holding SKILL.md is one skill: everything under it is that skill's files.
    const skillMd = skillMdEntry(entries);
    if (skillMd) {
      const skillFile = path + sep + skillMd.name;
      const held = this.inner.size > 0 ? this.innerLayerWithin(real) : undefined;
      if (held !== undefined) {
        // Its files would be served as this layer's: the whole skill is refused, never half of it.
        this.diagnostics.push({
          severity: "error",
          code: "layer-in-skill-folder",
          file: skillFile,
          message: `this skill folder holds the folder of layer "${held}", whose files belong to that layer alone; the skill is not loaded`,
          hint: `move layer "${held}"'s folder out of the skill folder`,
        });
        return;
      }
      this.folders.push({ dir: path, skillFile, topFiles: topFilesOf(entries) });
      return;
    }
    for (const entry of entries) {
      const name = entry.name;
      if (isIgnoredName(name)) continue;
      // Names from readdir hold no separator: plain concatenation is join() without its cost.
      const full = path + sep + name;
      if (entry.isDirectory()) {
        const sub = real + sep + name;
        if (this.inner.has(sub)) continue;
        this.walkedDirs.set(sub, full);
        this.queue.push({ path: full, real: sub, viaLink });
      } else if (entry.isFile()) {
        if (isSkillFileName(name)) this.addFile(full, real + sep + name, viaLink);
      } else if (entry.isSymbolicLink()) {
        this.links.push({ path: full, real, name });
      } else if (SKILL_FILES.match(name)) {
        this.warn(
          "not-a-file",
          full,
          "skipped without opening it: not a regular file (a FIFO, socket or device)",
          NOT_A_FILE_HINT,
        );
      }
    }
  }

  /** The name of another layer whose folder is `real` or lies under it. */
  private innerLayerWithin(real: string): string | undefined {
    for (const [dir, name] of this.inner) if (inside(dir, real)) return name;
    return undefined;
  }

  /** Whether a real path is in (or is) another layer's folder: that layer's, never this one's. */
  private ofInnerLayer(real: string): boolean {
    for (const dir of this.inner.keys()) if (inside(real, dir)) return true;
    return false;
  }

  private addFile(full: string, realFile: string, viaLink: boolean): void {
    if (viaLink) {
      this.seenFiles ??= new Set(this.realFiles);
      if (this.seenFiles.has(realFile)) return;
      this.seenFiles.add(realFile);
    }
    this.realFiles.push(realFile);
    this.files.push(full);
  }

  private followLink({ path: full, real: parentReal, name }: PendingLink): void {
    let target: string;
    try {
      target = realpathSync(full);
    } catch (error) {
      this.warn("broken-link", full, `link not followed: ${describeFsError(error)}`, BROKEN_LINK_HINT);
      return;
    }
    if (!inside(target, this.realRoot)) {
      this.warn(
        "link-outside-layer",
        full,
        `link not followed: it points outside the layer (${target})`,
        "copy the file into the layer, or declare its folder as a layer of its own",
      );
      return;
    }
    // A link into another layer's folder: those files are that layer's alone.
    if (this.inner.size > 0 && this.ofInnerLayer(target)) return;
    let info: Stats;
    try {
      info = statSync(target);
    } catch (error) {
      this.warn("broken-link", full, `link not followed: ${describeFsError(error)}`, BROKEN_LINK_HINT);
      return;
    }
    if (info.isDirectory()) this.followFolderLink(full, target, parentReal);
    else if (info.isFile() && isSkillFileName(name)) this.addFile(full, target, true);
  }

  /** A link to a folder is walked unless it loops back or leads to a folder walked already. */
  private followFolderLink(full: string, target: string, parentReal: string): void {
    if (inside(parentReal, target)) {
      this.warn(
        "link-loop",
        full,
        `link not followed: it loops back to ${this.walkedDirs.get(target) ?? target}, a folder that contains it`,
        "remove the link",
      );
      return;
    }
    const earlier = this.walkedDirs.get(target);
    if (earlier !== undefined) {
      this.warn(
        "link-duplicate",
        full,
        `link not followed: it leads to ${earlier}, which is already part of this layer`,
        "remove the link; every skill under it is loaded once already",
      );
      return;
    }
    this.walkedDirs.set(target, full);
    this.queue.push({ path: full, real: target, viaLink: true });
  }
}
