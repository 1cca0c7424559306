/**
 * Findings only a whole-project view shows: a layer whose folder holds no skill file (a warning),
 * prompt skills whose tags compose with nothing (a note), descriptions too vague to choose by and
 * skills that compete for the same request (warnings), and deprecated skills the usage history
 * shows in use (a note). Part of every project check (`validate`, `doctor`, the
 * board), so `doctor` and `validate --strict` judge a project alike; each points at a
 * `file:line:col` (the layer's declaration, the skill's `tags`), as every other finding does.
 */
import { layerPlace } from "../../config/layer-position.ts";
import type { Diagnostic } from "../../diagnostics.ts";
import type { LoadResult } from "../../load/load-skills.ts";
import type { LayerRef, Registry } from "../../registry/registry.ts";
import type { Locator } from "../../storage/parse-document.ts";
import { layerDirState } from "../../storage/fs-state.ts";
import { storeLocation } from "../../storage/store-location.ts";
import { readUsage } from "../../storage/usage-store.ts";
import { competingWarnings } from "../../registry/overlap.ts";
import type { Candidate } from "../../registry/registry.ts";
import { vagueDescriptionWarning } from "../../skill/description-quality.ts";
import { plural } from "./command.ts";

/**
 * "Composes with nothing": `skills:compose` joins prompt skills that share a tag, so a prompt
 * skill whose every tag is on no other served prompt skill only ever composes with itself. Tools
 * never compose, and built-in skills are left out (nobody in the project can change them), though
 * their tags count as partners; a project with one prompt skill of its own is not told.
 */
export function lonelyPrompts(registry: Registry, builtin?: LayerRef): { id: string; path: string; tags: string[] }[] {
  const own = registry.ofType("prompt").filter((c) => c.layer !== builtin);
  // A project's only prompt skill has nothing to compose with yet: saying so is noise (a fresh `init`).
  if (own.length < 2) return [];
  return own
    .filter((c) => c.skill.tags.length > 0 && c.skill.tags.every((tag) => registry.promptsTagged(tag).length === 1))
    .map((c) => ({ id: c.skill.id, path: c.path, tags: [...c.skill.tags] }));
}

/**
 * Descriptions a model cannot choose by: too vague, or competing with another skill's
 * (docs/catalog.md). `competing: false` leaves the second out for a caller that searches for
 * competing skills itself, off its event loop (the board).
 */
export function choosingWarnings(
  served: readonly Candidate[],
  locate: (path: string) => Locator | undefined,
  competing = true,
): Diagnostic[] {
  const at = (path: string) => locate(path)?.(["description"]);
  const vague = served.flatMap(
    (c) => vagueDescriptionWarning(c.skill.id, c.skill.description, c.path, at(c.path)) ?? [],
  );
  if (!competing) return vague;
  for (const d of competingWarnings(served, at)) vague.push(d);
  return vague;
}

/** The usage history looked at for deprecated skills still in use. */
const IN_USE_WINDOW_DAYS = 30;

/** Deprecated skills served now that the usage history shows in use lately: whoever uses them should move. */
async function deprecatedInUse(loaded: LoadResult): Promise<Diagnostic[]> {
  const settings = loaded.config.usage;
  const deprecated = loaded.registry.served().filter((c) => c.skill.deprecated !== undefined);
  if (settings === undefined || settings.store === "off" || deprecated.length === 0) return [];
  const since = Date.now() - IN_USE_WINDOW_DAYS * 86_400_000;
  // A store that cannot be read shows no use; `usage` is where its reason is said.
  const read = await readUsage(storeLocation(settings.store, settings.passwordEnv), { since });
  const uses = new Map(read.skills.filter((u) => u.uses > 0).map((u) => [u.skill, u.uses]));
  return deprecated.flatMap((c) => {
    const n = uses.get(c.skill.id);
    if (n === undefined) return [];
    return [
      {
        severity: "note" as const,
        code: "deprecated-in-use",
        file: c.path,
        message: `deprecated skill "${c.skill.id}" is still in use: ${plural(n, "use")} in the last ${IN_USE_WINDOW_DAYS} days`,
        hint: `tell its users what replaces it (\`skill-central usage --skill ${c.skill.id}\` shows which clients)`,
      },
    ];
  });
}

/** What a project check leaves out: the board works out competing skills itself, in slices, after a load is shown. */
export interface ProjectCheckOptions {
  competing?: boolean;
}

export async function projectFindings(loaded: LoadResult, options: ProjectCheckOptions = {}): Promise<Diagnostic[]> {
  const { registry, config, display, records } = loaded;
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
    // Advice, not a fault: a new project's first skill has tags nobody shares yet, and
    // `validate --strict` must not fail on that (its scaffold and the docs' examples do).
    problems.push({
      severity: "note",
      code: "tags-compose-with-nothing",
      file: lonely.path,
      ...(position && { position }),
      message: `prompt "${lonely.id}": no other prompt skill has its tag${lonely.tags.length === 1 ? "" : "s"} (${lonely.tags.join(", ")}), so skills:compose with ${lonely.tags.length === 1 ? "it" : "them"} returns only this skill`,
      hint: "give a related prompt skill the same tag, or drop the tag",
    });
  }
  const locators = new Map(records.flatMap((r) => (r.locate ? [[r.path, r.locate] as const] : [])));
  // One a line: a catalog of look-alike skills has a warning for each (a spread of them overflows the stack).
  for (const d of choosingWarnings(registry.served(), (path) => locators.get(path), options.competing ?? true))
    problems.push(d);
  for (const d of await deprecatedInUse(loaded)) problems.push(d);
  return problems;
}
