import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Registry } from "../registry/registry.ts";
import { listPrompts } from "./prompts.ts";
import type { RegistrySource } from "./registry-source.ts";
import { listResources } from "./resources.ts";
import { listTools } from "./tools.ts";

/** The lists a client caches, each with the notification that tells it to list again. */
const LISTS: readonly { list: (registry: Registry) => unknown; notify: (server: Server) => Promise<void> }[] = [
  { list: (r) => listPrompts(r).prompts, notify: (s) => s.sendPromptListChanged() },
  { list: (r) => listTools(r).tools, notify: (s) => s.sendToolListChanged() },
  { list: (r) => listResources(r).resources, notify: (s) => s.sendResourceListChanged() },
];

/**
 * After each reload, tells the client which lists changed: only those whose entries (names,
 * titles, descriptions, arguments, schemas) differ, so an edit to a prompt's body costs the
 * client nothing. The comparison runs on the cached listings (the new ones are built here, off
 * the request path). Nothing is sent before the client has finished initializing; it lists
 * everything afterwards anyway. Within one reload the order is prompts, tools, resources.
 */
export function registerListChanged(server: Server, source: RegistrySource, warn: (message: string) => void): void {
  let initialized = false;
  const chained = server.oninitialized;
  server.oninitialized = () => {
    chained?.();
    initialized = true;
  };
  source.onSwap((next, previous) => {
    if (!initialized) return;
    for (const { list, notify } of LISTS) {
      if (Bun.deepEquals(list(previous), list(next), true)) continue;
      notify(server).catch((error: unknown) => warn(`could not send a list_changed notification: ${String(error)}`));
    }
  });
}
