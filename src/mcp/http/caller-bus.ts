/**
 * The event bus behind 2026-07-28 `subscriptions/listen` streams, aware of who opened each one.
 * The SDK's own bus hands every stream every event its filter names, so a `resources/updated`
 * for a `skill://` URI would confirm to a caller outside a layer that a hidden skill exists (and
 * a hidden copy shadowing a visible skill would announce its own edits). Here each stream is
 * tied to the caller whose request opened it (dispatch runs the SDK's handler inside `as`, and
 * the SDK registers the stream's listener within that request), and after a reload each stream
 * hears only of the URIs that changed in its caller's view (src/registry/visibility.ts), worked
 * out once per view. A stream whose caller is unknown is anonymous: it sees no restricted layer.
 * List changes go to every stream, as before (docs/layer-access.md says what that can tell).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { ServerEvent, ServerEventBus } from "@modelcontextprotocol/server";
import { ANONYMOUS, type Caller } from "../../registry/caller.ts";
import type { Registry } from "../../registry/registry.ts";
import { visibleRegistry } from "../../registry/visibility.ts";
import { changedUris } from "../resource-subscriptions.ts";

type Listener = (event: ServerEvent) => void;

export class CallerEventBus implements ServerEventBus {
  private readonly listeners = new Map<Listener, Caller>();
  private readonly opening = new AsyncLocalStorage<Caller>();

  /** Runs `serve` (one request) as `caller`: a listen stream it opens belongs to that caller. */
  as<T>(caller: Caller, serve: () => T): T {
    return this.opening.run(caller, serve);
  }

  /** List changes, to every stream. A resource update never goes this way: it is per caller (`announceUpdates`). */
  publish(event: ServerEvent): void {
    if (event.kind === "resource_updated") return;
    for (const listener of [...this.listeners.keys()]) this.deliver(listener, event);
  }

  subscribe(listener: Listener): () => void {
    this.listeners.set(listener, this.opening.getStore() ?? ANONYMOUS);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** After a reload: each stream hears of the `skill://` URIs whose bytes changed in its caller's view. */
  announceUpdates(next: Registry, previous: Registry): void {
    if (this.listeners.size === 0) return;
    // Per pair of views: callers who see the same layers share the work.
    const known = new Map<Registry, Map<Registry, readonly string[]>>();
    for (const [listener, caller] of [...this.listeners]) {
      const now = visibleRegistry(next, caller);
      const before = visibleRegistry(previous, caller);
      let byBefore = known.get(now);
      if (byBefore === undefined) {
        byBefore = new Map();
        known.set(now, byBefore);
      }
      let uris = byBefore.get(before);
      if (uris === undefined) {
        uris = changedUris(before, now);
        byBefore.set(before, uris);
      }
      for (const uri of uris) this.deliver(listener, { kind: "resource_updated", uri });
    }
  }

  private deliver(listener: Listener, event: ServerEvent): void {
    try {
      listener(event);
    } catch {
      // A stream closed meanwhile: the SDK unsubscribes it.
    }
  }
}
