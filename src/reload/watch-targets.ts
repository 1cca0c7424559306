/** Everything a reload depends on (layer folders, config files that may not exist yet, the lockfile), as the watches to hold. */
import { dirname, join, relative, sep } from "node:path";
import { PROJECT_CONFIG_NAMES, USER_CONFIG_DIR, USER_CONFIG_NAMES } from "../config/config-file.ts";
import { FALLBACK_LAYER_DIR, type ResolvedConfig } from "../config/resolve-config.ts";
import { isDirectory, isEmbedded } from "../storage/fs-state.ts";

/** Something whose change means a reload: a folder of skills (at any depth) or one config file. */
export interface WatchTarget {
  path: string;
  kind: "tree" | "file";
}

/**
 * Everything a reload depends on: every layer folder, the `.skills/` fallback, every config
 * file the config step would read, including the ones that do not exist yet (creating one is a
 * change too), and the other files resolution read (the lockfile, the cache's current commits).
 */
export function watchTargets(config: ResolvedConfig, where: { cwd: string; home: string }): WatchTarget[] {
  const targets: WatchTarget[] = [];
  const seen = new Set<string>();
  const add = (path: string, kind: WatchTarget["kind"]) => {
    if (seen.has(path) || isEmbedded(path)) return;
    seen.add(path);
    targets.push({ path, kind });
  };
  for (const layer of config.layers) if (layer.dir !== "") add(layer.dir, "tree");
  for (const input of config.inputs ?? []) add(input, "file");
  add(join(where.cwd, FALLBACK_LAYER_DIR), "tree");
  for (const name of USER_CONFIG_NAMES) add(join(where.home, USER_CONFIG_DIR, name), "file");
  for (const name of PROJECT_CONFIG_NAMES) add(join(where.cwd, name), "file");
  return targets;
}

/**
 * One `fs.watch` to hold: a folder, recursive or not. A non-recursive point reports only the
 * entries named in `names` (its path's next segment toward a target).
 */
export interface WatchPoint {
  dir: string;
  recursive: boolean;
  /** Undefined: any change under `dir` counts. */
  names?: ReadonlySet<string>;
}

/** The nearest folder above `path` that exists, and the next path segment below it. */
function nearestExisting(path: string): { dir: string; next: string } | undefined {
  let child = path;
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    if (isDirectory(dir)) return { dir, next: relative(dir, child).split(sep)[0]! };
    if (dirname(dir) === dir) return undefined;
    child = dir;
  }
}

/**
 * Where to put watches for `targets` as the file system is now: an existing skill folder gets a
 * recursive watch plus a watch on its parent for its own name (deleted, renamed, recreated: the
 * recursive watch of a deleted folder is dead even when a new folder appears at the path);
 * anything that does not exist yet is watched from its nearest existing ancestor, for the next
 * segment of its path. A reload recomputes this, so the watches follow folders as they appear.
 */
export function watchPoints(targets: readonly WatchTarget[]): WatchPoint[] {
  const byKey = new Map<string, { dir: string; recursive: boolean; names?: Set<string> }>();
  const point = (dir: string, recursive: boolean, name?: string) => {
    const key = watchKey({ dir, recursive });
    const existing = byKey.get(key);
    if (!existing) byKey.set(key, { dir, recursive, ...(name !== undefined && { names: new Set([name]) }) });
    else if (name === undefined) delete existing.names;
    else existing.names?.add(name);
  };
  for (const target of targets) {
    if (target.kind === "tree" && isDirectory(target.path)) point(target.path, true);
    const above = nearestExisting(target.path);
    if (above) point(above.dir, false, above.next);
  }
  return [...byKey.values()];
}

export function watchKey(point: Pick<WatchPoint, "dir" | "recursive">): string {
  return `${point.recursive ? "tree" : "dir"}:${point.dir}`;
}

/** The entry a non-recursive watch event is about (events carry a name relative to the folder). */
export function entryOf(filename: string): string {
  return filename.split(/[\\/]/)[0] ?? filename;
}
