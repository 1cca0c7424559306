/** The live registry every handler reads: the current snapshot, swapped whole on reload, with what is served beside it. */
import { DEFAULT_CATALOG_SETTINGS, type CatalogSettings } from "../config/catalog-settings.ts";
import type { ElicitationMode } from "../config/elicitation-settings.ts";
import type { Registry } from "../registry/registry.ts";

/** Asking for missing arguments, as served: the mode, and the shared key of a stateless replica set (its file already read). */
export interface ServedElicitation {
  mode: ElicitationMode;
  stateKey?: Uint8Array;
}

const DEFAULT_SERVED_ELICITATION: ServedElicitation = Object.freeze({ mode: "auto" });

/**
 * Called after a reload swapped in `next`; `previous` is the snapshot it replaced. `catalog`
 * holds the catalog settings served with each (a config edit can change them).
 */
export type SwapListener = (
  next: Registry,
  previous: Registry,
  catalog: { next: CatalogSettings; previous: CatalogSettings },
) => void;

/**
 * How MCP handlers reach the registry: the first load may still be running when `initialize`
 * arrives (it is answered without waiting), and a reload swaps in a new snapshot.
 *
 * A handler awaits `current()` once and works on that snapshot to the end, so a request sees
 * the old set or the new one, never a mix.
 */
export interface RegistrySource {
  current(): Promise<Registry>;
  /** The snapshot being served, without waiting: undefined until the first load is done. */
  loaded(): Registry | undefined;
  /** Items per page of `*\/list` results; undefined serves everything in one page. */
  pageSize(): number | undefined;
  /** How skills reach tool-only and capped clients (docs/catalog.md), as configured for the snapshot being served. */
  catalogSettings(): CatalogSettings;
  /** Whether (and with which state key) to ask clients for missing required arguments. */
  elicitation(): ServedElicitation;
  /** Subscribes to swaps (not to the first load); returns the unsubscribe function. */
  onSwap(listener: SwapListener): () => void;
}

/**
 * The server's registry over its lifetime: pending until the first load, then replaced
 * atomically (one reference assignment) by each reload.
 */
export class LiveRegistry implements RegistrySource {
  private snapshot: Promise<Registry>;
  private latest: Registry | undefined;
  private size: number | undefined;
  private catalog: CatalogSettings = DEFAULT_CATALOG_SETTINGS;
  private asking: ServedElicitation = DEFAULT_SERVED_ELICITATION;
  private readonly resolveFirst: (registry: Registry) => void;
  private readonly rejectFirst: (error: unknown) => void;
  private readonly listeners = new Set<SwapListener>();
  private firstLoadFailed = false;

  constructor() {
    const first = Promise.withResolvers<Registry>();
    this.snapshot = first.promise;
    this.resolveFirst = first.resolve;
    this.rejectFirst = first.reject;
    // A failed first load is reported to each request; it must not also be an unhandled rejection.
    first.promise.catch(() => {});
  }

  /** `performance.now()` of the latest request: background work waits for a quiet moment. */
  lastRequestAt = 0;

  current(): Promise<Registry> {
    this.lastRequestAt = performance.now();
    return this.snapshot;
  }

  loaded(): Registry | undefined {
    return this.latest;
  }

  pageSize(): number | undefined {
    return this.size;
  }

  catalogSettings(): CatalogSettings {
    return this.catalog;
  }

  elicitation(): ServedElicitation {
    return this.asking;
  }

  /** Set with each load (a config edit can change it), before the snapshot is swapped in. */
  setElicitation(settings: ServedElicitation): void {
    this.asking = settings;
  }

  onSwap(listener: SwapListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Serves `next` from now on; the first call ends the wait of requests that came early. */
  swap(next: Registry, pageSize?: number, catalog: CatalogSettings = DEFAULT_CATALOG_SETTINGS): void {
    const previous = this.latest;
    const previousCatalog = this.catalog;
    this.latest = next;
    this.size = pageSize;
    this.catalog = catalog;
    if (previous === undefined) {
      this.resolveFirst(next);
      return;
    }
    this.snapshot = Promise.resolve(next);
    for (const listener of this.listeners) listener(next, previous, { next: catalog, previous: previousCatalog });
  }

  /** The first load failed: requests get its error instead of waiting forever. */
  fail(error: unknown): void {
    if (this.latest !== undefined) return;
    this.firstLoadFailed = true;
    this.rejectFirst(error);
  }

  /** For readiness probes: the snapshot being served, once there is one. */
  readiness(): { state: "loading" | "failed" } | { state: "ready"; registry: Registry } {
    if (this.latest !== undefined) return { state: "ready", registry: this.latest };
    return { state: this.firstLoadFailed ? "failed" : "loading" };
  }
}
