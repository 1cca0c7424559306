/**
 * The registry as one caller sees it (src/registry/visibility.ts): every snapshot the source
 * serves, restricted to the layers `caller` may see. Every MCP handler reaches skills through a
 * `RegistrySource`, so a server built on this one serves the caller its own skills on every
 * surface. For the local user (stdio) it is the source itself.
 */
import type { Caller } from "../registry/caller.ts";
import { visibleRegistry } from "../registry/visibility.ts";
import type { RegistrySource } from "./registry-source.ts";

export function sourceFor(source: RegistrySource, caller: Caller): RegistrySource {
  if (caller.kind === "local") return source;
  return {
    current: async () => visibleRegistry(await source.current(), caller),
    loaded: () => {
      const registry = source.loaded();
      return registry && visibleRegistry(registry, caller);
    },
    pageSize: () => source.pageSize(),
    catalogSettings: () => source.catalogSettings(),
    elicitation: () => source.elicitation(),
    onSwap: (listener) =>
      source.onSwap((next, previous, catalog) =>
        listener(visibleRegistry(next, caller), visibleRegistry(previous, caller), catalog),
      ),
  };
}
