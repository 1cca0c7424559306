/**
 * Whose config a value came from: the user's own (`~/.skill-central/config.yaml`) or a
 * project's (`skill-central.yaml`, which arrives with any repository one clones). Some settings
 * are the user's alone, because they reach beyond the project: where the usage history of every
 * project is kept, and how long. A project's config that sets one is not obeyed; it is told so in
 * one warning at the key. A block declares such a key with the merge rule `user`
 * (merge-settings.ts), whose `mayDeclare` calls `userOnly` (shared, so every user-only key is
 * refused the same way and in the same words).
 */
import type { ConfigPath, ReportProblem } from "./config-problem.ts";

/** `user`: the user's own config file; `project`: a project's (any file not known to be the user's). */
export type ConfigOrigin = "user" | "project";

/**
 * Whether `origin` may set the user-only key at `path` (under a block, e.g. `["store"]` under
 * `usage`); when it may not, says so at the key and the caller leaves the value out.
 */
export function userOnly(origin: ConfigOrigin, name: string, path: ConfigPath, report: ReportProblem): boolean {
  if (origin === "user") return true;
  report({
    message: `${name} is a user setting; ignored in a project's config`,
    path,
    hint: "set it in your own ~/.skill-central/config.yaml",
  });
  return false;
}
