import { homedir } from "node:os";
import { join } from "node:path";

/**
 * skill-central's folder in the user's cache: `$SKILL_CENTRAL_CACHE_DIR`, else
 * `$XDG_CACHE_HOME/skill-central`, else `~/.cache/skill-central`. Everything in it can be
 * deleted at any time; it is rebuilt on demand.
 */
export function cacheRoot(home: string = homedir(), env: Record<string, string | undefined> = process.env): string {
  return env.SKILL_CENTRAL_CACHE_DIR || join(env.XDG_CACHE_HOME || join(home, ".cache"), "skill-central");
}
