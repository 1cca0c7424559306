/** Per-snapshot memoisation: a view built once per registry snapshot and dropped with it after a reload. */
import type { Registry } from "./registry.ts";

/**
 * Memoises a view of a registry snapshot: built on first use, then shared by every request that
 * sees the same snapshot, and dropped with it after a reload (a WeakMap keyed by the snapshot).
 */
export function perSnapshot<T>(build: (registry: Registry) => T): (registry: Registry) => T {
  const views = new WeakMap<Registry, T>();
  return (registry) => {
    let view = views.get(registry);
    if (view === undefined) {
      view = build(registry);
      views.set(registry, view);
    }
    return view;
  };
}
