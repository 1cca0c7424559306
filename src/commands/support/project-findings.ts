import { layerPlace } from "../../config/layer-position.ts";
import type { Diagnostic } from "../../diagnostics.ts";
import type { LoadResult } from "../../load/load-skills.ts";
import type { LayerRef, Registry } from "../../registry/registry.ts";
import { layerDirState } from "../../storage/fs-state.ts";

/**
 * Warnings only a whole-project view shows: a layer whose folder holds no skill file, and prompt
 * skills whose tags compose with nothing. Part of every project check (`validate`, `doctor`, the
 * board), so `doctor` and `validate --strict` judge a project alike; each points at a
 * `file:line:col` (the layer's declaration, the skill's `tags`), as every other finding does.
 */

/**
 * "Composes with nothing": `skills:compose` joins prompt skills that share a tag, so a prompt
 * skill whose every tag is on no other served prompt skill only ever composes with itself. Tools
 * never compose, and built-in skills are left out (nobody in the project can change them), though
 * their tags count as partners.
 */
export function lonelyPrompts(registry: Registry, builtin?: LayerRef): { id: string; path: string; tags: string[] }[] {
  return registry
    .ofType("prompt")
    .filter((c) => c.layer !== builtin)
    .filter((c) => c.skill.tags.length > 0 && c.skill.tags.every((tag) => registry.promptsTagged(tag).length === 1))
    .map((c) => ({ id: c.skill.id, path: c.path, tags: [...c.skill.tags] }));
}

export function projectFindings({ registry, config, display, records }: LoadResult): Diagnostic[] {
  const problems: Diagnostic[] = [];
  const filesPerLayer = new Map<string, number>();
  for (const r of records) filesPerLayer.set(r.layer.name, (filesPerLayer.get(r.layer.name) ?? 0) + 1);
  for (const spec of config.layers) {
    if (spec.unavailable !== undefined || filesPerLayer.has(spec.name) || layerDirState(spec.dir) !== "ok") continue;
    const place = layerPlace(spec);
    problems.push({
      severity: "warning",
      code: "layer-empty",
      ...place,
      message: `layer "${spec.name}"${place.file === spec.dir ? ` (${spec.origin})` : ""}: the folder ${display(spec.dir)} has no skill files`,
      hint: `add one with skill-central new <id> --type prompt --layer ${spec.name}, or remove the layer`,
    });
  }
  // Registry layers are the config's layers, in the same order.
  const builtinLayer = registry.layers[config.layers.findIndex((l) => l.origin === "built-in")];
  const positions = new Map(records.map((r) => [r.path, r]));
  for (const lonely of lonelyPrompts(registry, builtinLayer)) {
    const position = positions.get(lonely.path)?.locate?.(["tags"]);
    problems.push({
      severity: "warning",
      code: "tags-compose-with-nothing",
      file: lonely.path,
      ...(position && { position }),
      message: `prompt "${lonely.id}": no other prompt skill has its tag${lonely.tags.length === 1 ? "" : "s"} (${lonely.tags.join(", ")}), so skills:compose with ${lonely.tags.length === 1 ? "it" : "them"} returns only this skill`,
      hint: "give a related prompt skill the same tag, or drop the tag",
    });
  }
  return problems;
}
