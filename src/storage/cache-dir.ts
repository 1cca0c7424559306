/** skill-central's folder in the user's cache, in one place for every cache that lives under it. */
import { homedir } from "node:os";
import { join } from "node:path";
import { shortHash } from "./digest.ts";

/**
 * skill-central's folder in the user's cache: `$SKILL_CENTRAL_CACHE_DIR`, else
 * `$XDG_CACHE_HOME/skill-central`, else `~/.cache/skill-central`. Everything in it can be
 * deleted at any time; it is rebuilt on demand.
 */
export function cacheRoot(home: string = homedir(), env: Record<string, string | undefined> = process.env): string {
  return env.SKILL_CENTRAL_CACHE_DIR || join(env.XDG_CACHE_HOME || join(home, ".cache"), "skill-central");
}

/**
 * A project folder's name in the cache (its start-up index, what sync last served it): 16 hex
 * digits of the folder's path, the length it has always had, so existing caches keep their names.
 */
export function projectCacheName(cwd: string): string {
  return shortHash(cwd, 16);
}
