/** After each reload, which lists changed for clients (names, descriptions, arguments, schemas), worked out once per reload. */
import type { Server } from "@modelcontextprotocol/server";
import type { Feature, ListKind } from "./feature.ts";
import type { RegistrySource } from "./registry-source.ts";
import { FEATURES } from "./server.ts";

/** Within one reload, announcements go out in this order. */
const ORDER: readonly ListKind[] = ["prompts", "tools", "resources"];

/**
 * After each reload, calls `changed` with the lists whose entries (names, titles, descriptions,
 * arguments, schemas; for tools, under each catalog mode) differ from the previous snapshot's, so an edit to a prompt's body costs
 * clients nothing. The comparison runs on the cached listings (the new ones are built here, off
 * the request path), once per reload whatever the number of clients. Returns the unsubscribe
 * function.
 */
export function watchListChanges(
  source: RegistrySource,
  changed: (kinds: readonly ListKind[]) => void,
  features: readonly Feature[] = FEATURES,
): () => void {
  const lists = features.flatMap((feature) => feature.lists ?? []);
  return source.onSwap((next, previous, catalog) => {
    const kinds = ORDER.filter((kind) =>
      lists.some(
        (list) =>
          list.kind === kind &&
          !Bun.deepEquals(list.entries(previous, catalog.previous), list.entries(next, catalog.next), true),
      ),
    );
    if (kinds.length > 0) changed(kinds);
  });
}

/** Sends one server instance's list_changed notifications (2025-11-25 connections, or a stdio listen stream). */
export async function sendListChanged(server: Server, kinds: readonly ListKind[]): Promise<void> {
  for (const kind of kinds) {
    if (kind === "prompts") await server.sendPromptListChanged();
    else if (kind === "tools") await server.sendToolListChanged();
    else await server.sendResourceListChanged();
  }
}
