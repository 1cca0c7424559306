/** A registry snapshot as a caller may see it: the layers it may not see left out, resolved again, one view per set of hidden layers. */
import { canSee, type Caller } from "./caller.ts";
import { buildRegistry, type LayerRef, type Registry } from "./registry.ts";

interface Views {
  /** The snapshot's layers that declare `visibleTo`, in declaration order. */
  restricted: readonly LayerRef[];
  /** One view per set of hidden layers (their orders, joined), made on first use. */
  bySet: Map<string, Registry>;
}

/** Per snapshot, dropped with it after a reload. */
const viewsOf = new WeakMap<Registry, Views>();

function views(registry: Registry): Views {
  let known = viewsOf.get(registry);
  if (known === undefined) {
    known = { restricted: registry.layers.filter((l) => l.visibleTo !== undefined), bySet: new Map() };
    viewsOf.set(registry, known);
  }
  return known;
}

/** Whether any layer of the snapshot declares `visibleTo`: then what is served differs by caller. */
export function hasRestrictedLayers(registry: Registry): boolean {
  return views(registry).restricted.length > 0;
}

/** The snapshot's layers that declare `visibleTo`. */
export function restrictedLayers(registry: Registry): readonly LayerRef[] {
  return views(registry).restricted;
}

/**
 * The snapshot as `caller` may see it: without the layers it may not see, and resolved again over
 * the candidates that are left, so a skill of a hidden layer that shadows a visible one leaves the
 * visible one served, and a hidden layer's name appears nowhere (layers, chains). The local user
 * (stdio, the board) sees everything.
 *
 * When the caller sees every layer (always, when no layer declares `visibleTo`), this is the
 * snapshot itself: the same object, so nothing changes and nothing is built. Otherwise the view
 * is built once per snapshot and set of hidden layers and shared by every caller with that set;
 * everything memoised per snapshot (listings, search index, published skills) is then memoised
 * per view too, since it is keyed on the registry object.
 */
export function visibleRegistry(registry: Registry, caller: Caller): Registry {
  if (caller.kind === "local") return registry;
  const { restricted, bySet } = views(registry);
  if (restricted.length === 0) return registry;
  const hidden = restricted.filter((layer) => !canSee(layer.visibleTo, caller));
  if (hidden.length === 0) return registry;
  const key = hidden.map((layer) => layer.order).join(",");
  let view = bySet.get(key);
  if (view === undefined) {
    view = restrictTo(registry, new Set(hidden));
    bySet.set(key, view);
  }
  return view;
}

/** Resolution again, over the candidates of the layers not hidden. Its findings were reported with the full load's. */
function restrictTo(registry: Registry, hidden: ReadonlySet<LayerRef>): Registry {
  const candidates = registry
    .resolutions()
    .flatMap((resolution) => resolution.chain.map((p) => p.candidate).filter((c) => !hidden.has(c.layer)));
  return buildRegistry(
    registry.layers.filter((layer) => !hidden.has(layer)),
    candidates,
  ).registry;
}
