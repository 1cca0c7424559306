/**
 * What a static publication (`publish`) may hold. A static tree has no callers to admit, so it
 * holds what a caller who sees no restricted layer is served (src/registry/visibility.ts): every
 * layer with `visibleTo` is left out, a skill of one that shadows a visible skill leaves the
 * visible one published, and the layers left out are named. Asked for, it holds everything.
 */
import { ANONYMOUS } from "./caller.ts";
import type { Registry } from "./registry.ts";
import { restrictedLayers, visibleRegistry } from "./visibility.ts";

export interface PublishedLayers {
  registry: Registry;
  /** The layers with `visibleTo` left out, with how many skills each held. */
  leftOut: { name: string; skills: number }[];
}

export function publishedRegistry(registry: Registry, includeRestricted: boolean): PublishedLayers {
  const restricted = restrictedLayers(registry);
  if (includeRestricted || restricted.length === 0) return { registry, leftOut: [] };
  const skills = new Map<string, number>();
  for (const resolution of registry.resolutions())
    for (const { candidate } of resolution.chain)
      if (candidate.layer.visibleTo !== undefined)
        skills.set(candidate.layer.name, (skills.get(candidate.layer.name) ?? 0) + 1);
  return {
    // Nobody in particular: no layer with visibleTo.
    registry: visibleRegistry(registry, ANONYMOUS),
    leftOut: restricted.map((layer) => ({ name: layer.name, skills: skills.get(layer.name) ?? 0 })),
  };
}
