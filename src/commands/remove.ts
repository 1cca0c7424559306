/**
 * `skill-central remove NAME`: undoes `add`. The layer's entry leaves the project's
 * `skill-central.yaml` (the rest of the file byte for byte, a backup first: support/layers-edit.ts),
 * its entry leaves `skill-central.lock`, and its cached copy is deleted unless another layer of
 * this project serves the same copy. Only layers the project's own file declares: a user's
 * layers are theirs to edit.
 */
import { homedir } from "node:os";
import { rm } from "node:fs/promises";
import { projectConfigPath } from "../config/config-file.ts";
import type { LayerSpec } from "../config/resolve-config.ts";
import { backUp, FileProblem, readConfigFile, writeAtomically } from "../install/config-file.ts";
import { CacheEntry } from "../sources/cache-entry.ts";
import { canonicalUrl } from "../sources/git-url.ts";
import { lockfilePath, readLockfile, writeLockfile } from "../sources/lockfile.ts";
import { removeTree } from "../sources/remove-tree.ts";
import { forgetCopy } from "../sources/verify-copy.ts";
import { WellKnownCache } from "../sources/well-known/cache.ts";
import { displayPath } from "../storage/display-path.ts";
import { visibleLine } from "../visible-text.ts";
import { command, EXIT_OK, json, load } from "./support/command.ts";
import { declaredLayers, LayersEditProblem, withoutLayer } from "./support/layers-edit.ts";
import { flag, UsageError } from "./support/options.ts";

/** The copy folder (and its seal) a remote layer's locked entry names, with the cache entry to lock. */
interface CopyPlace {
  dir: string;
  seal: string;
  lock: () => Promise<{ release(): Promise<void> } | undefined>;
}

export const spec = command({
  name: "remove",
  summary: "Remove a layer from skill-central.yaml, its lock entry and its cached copy",
  usage: "remove <name> [--keep-cache] [--json]",
  description:
    "Undoes skill-central add: the layer's entry leaves the project's skill-central.yaml (the rest of the\n" +
    "file is kept byte for byte; a backup is written beside it first), its entry leaves skill-central.lock,\n" +
    "and the cached copy it served is deleted, unless another layer of the project serves the same copy\n" +
    "(--keep-cache keeps it). Refuses a layer the project's file does not declare.",
  options: {
    "keep-cache": flag("Leave the layer's cached copy on this machine"),
  },
  examples: ["skill-central remove anthropic", "skill-central remove vendor --keep-cache"],
  positionals: { min: 1, max: 1 },
  async run(ctx) {
    const name = ctx.args[0]!;
    const file = projectConfigPath(ctx.cwd);
    if (!file) throw new UsageError("no skill-central.yaml here (see --cwd): nothing to remove");
    const shown = displayPath(file, { cwd: ctx.cwd });
    const config = readConfigFile(file, shown);
    let next: string | undefined;
    let names: string[];
    try {
      names = declaredLayers(config.text).map((l) => l.name);
      next = withoutLayer(config.text, name);
    } catch (error) {
      if (!(error instanceof LayersEditProblem)) throw error;
      throw new UsageError(`${shown}: ${error.message}; remove the layer by hand`);
    }
    if (next === undefined)
      throw new UsageError(
        `${shown} declares no layer named "${name}" (its layers: ${names.join(", ") || "none"}); remove changes only the project's own file`,
      );

    // What the layer serves now, before its entry goes: the copy to delete.
    const loaded = await load({ ...ctx, json: true });
    const spec = loaded.config.layers.find((l) => l.name === name);
    const lockFile = lockfilePath(file);
    const lock = await readLockfile(lockFile);
    const place = copyPlace(spec, lock, name);
    const shared =
      place !== undefined &&
      loaded.config.layers.some((l) => l.name !== name && l.unavailable === undefined && l.dir === spec?.dir);

    let backup: string;
    try {
      backup = backUp(config);
      writeAtomically(config, next);
    } catch (error) {
      if (error instanceof FileProblem) throw new UsageError(error.message);
      throw error;
    }
    let lockChanged = false;
    if (lock.readable && (lock.entries.has(name) || lock.wellKnown.has(name))) {
      lock.entries.delete(name);
      lock.wellKnown.delete(name);
      lockChanged = await writeLockfile(lockFile, lock.entries, lock.wellKnown);
    }
    let cache: "removed" | "kept" | "shared" | "none" = "none";
    if (place) {
      if (shared) cache = "shared";
      else if (ctx.options["keep-cache"]) cache = "kept";
      else {
        const held = await place.lock();
        if (held) {
          try {
            forgetCopy(place.dir);
            await removeTree(place.dir);
            await rm(place.seal, { force: true });
            cache = "removed";
          } finally {
            await held.release();
          }
        } else cache = "kept";
      }
    }
    const backupShown = displayPath(backup, { cwd: ctx.cwd });
    if (ctx.json) {
      json(ctx, { removed: name, file: shown, backup: backupShown, lock: lockChanged, cache });
      return EXIT_OK;
    }
    const layer = visibleLine(name);
    let out = `${ctx.colours.green("removed")} layer ${ctx.colours.bold(layer)} from ${shown} ${ctx.colours.dim(`(backup: ${backupShown})`)}\n`;
    if (lockChanged) out += `  its entry left ${displayPath(lockFile, { cwd: ctx.cwd })}\n`;
    if (cache === "removed") out += "  its cached copy was deleted\n";
    if (cache === "shared") out += "  its cached copy stays: another layer of this project serves it\n";
    if (cache === "kept")
      out += "  its cached copy stays (--keep-cache, or another skill-central process holds the cache)\n";
    ctx.out(out);
    return EXIT_OK;
  },
});

function copyPlace(
  spec: LayerSpec | undefined,
  lock: Awaited<ReturnType<typeof readLockfile>>,
  name: string,
): CopyPlace | undefined {
  const home = homedir();
  if (spec?.source.kind === "git") {
    const locked = lock.entries.get(name);
    if (!locked || locked.url !== canonicalUrl(spec.source.url)) return undefined;
    const entry = new CacheEntry(spec.source.url, home);
    return {
      dir: entry.copyDir(locked.commit, locked.path),
      seal: entry.sealFile(locked.commit, locked.path),
      lock: () => entry.lock({ timeoutMs: 0 }),
    };
  }
  if (spec?.source.kind === "well-known") {
    const locked = lock.wellKnown.get(name);
    if (!locked) return undefined;
    const cache = new WellKnownCache(spec.source.url, home);
    return {
      dir: cache.copyDir(locked.contentHash),
      seal: cache.sealFile(locked.contentHash),
      lock: () => cache.lock({ timeoutMs: 0 }),
    };
  }
  return undefined;
}
