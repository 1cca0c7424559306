/**
 * Whose skills a layer holds (docs/cli.md#whose-skills-a-check-judges): a layer that is a folder of
 * this machine (the project's, or the user's own) holds skills someone here edits, so every
 * finding about them is theirs to fix; the built-in layer and git and url layers (verified copies
 * of someone else's commit or index) are fixed upstream. Decided here, at the config's stage, so
 * every part that scopes findings to what a team owns (the checkers, the board) decides alike.
 */
import type { LayerSpec } from "./resolve-config.ts";

export function ownedLayer(spec: Pick<LayerSpec, "origin" | "source">): boolean {
  return spec.origin !== "built-in" && spec.source.kind === "path";
}
