/**
 * The eval workspace (docs/eval.md): each run of `skill-central eval` that writes results gets a
 * new `iteration-N/`, N one past the highest present, so an earlier run is never overwritten.
 */
import { mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";

/** Creates and returns `iteration-N` after the highest already in `workspace`. */
export function nextIteration(workspace: string): string {
  mkdirSync(workspace, { recursive: true });
  for (;;) {
    let highest = 0;
    for (const name of readdirSync(workspace)) {
      const m = /^iteration-(\d+)$/.exec(name);
      if (m) highest = Math.max(highest, Number(m[1]));
    }
    const dir = join(workspace, `iteration-${highest + 1}`);
    try {
      // Not recursive: two runs starting at once cannot both take the same N.
      mkdirSync(dir);
      return dir;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
}
