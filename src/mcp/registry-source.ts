import type { Registry } from "../registry/registry.ts";

/**
 * How MCP handlers reach the registry: the first load may still be running when `initialize`
 * arrives (it is answered without waiting), and a reload swaps in a new snapshot.
 */
export interface RegistrySource {
  current(): Promise<Registry>;
}
