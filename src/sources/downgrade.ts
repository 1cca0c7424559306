/**
 * Rollback protection (docs/provenance.md): a host that serves an older commit or index, each
 * validly signed in its day, must not move a layer backwards. A git layer refuses a commit that
 * is an ancestor of the one it serves (the lock's, or a user layer's current copy); a url layer
 * with `signers`, an index published before the served one (signed-index.ts). The user who means
 * it says `--allow-downgrade`. Each refusal names both sides and the command that takes it.
 */

import type { CacheEntry } from "./cache-entry.ts";
import { GitError } from "./git.ts";

/** The command that takes a refused downgrade, for messages. */
export function allowDowngradeCommand(layer: string): string {
  return `\`skill-central sync --update ${layer} --allow-downgrade\``;
}

/**
 * Why moving layer `layer` from `served` to `commit` goes back in history, or undefined when it
 * does not (or cannot be told: the served commit is gone from the remote, a rewritten history).
 */
export async function commitDowngrade(
  entry: CacheEntry,
  commit: string,
  served: string,
  facts: { layer: string; locked: boolean; timeoutMs?: number | undefined },
): Promise<string | undefined> {
  if (commit === served) return undefined;
  try {
    await entry.fetchCommit(served, facts.timeoutMs);
  } catch (error) {
    if (!(error instanceof GitError)) throw error;
    return undefined;
  }
  if ((await entry.isAncestor(commit, served, facts.timeoutMs)) !== "yes") return undefined;
  return (
    `${commit.slice(0, 12)} is older than the ${facts.locked ? "locked" : "served"} commit ${served.slice(0, 12)} ` +
    `(an ancestor of it): moving back would serve an older, superseded commit (a reset branch, or a host serving an old copy); ` +
    `${allowDowngradeCommand(facts.layer)} takes it if that is meant`
  );
}
