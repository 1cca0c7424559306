/** The `initialize` instructions as a client gets them, and how long that answer waits for the first load. */
import type { ClientProfile } from "./catalog/client-profiles.ts";
import { catalogInstructions, serverInstructions } from "./instruction-text.ts";
import type { RegistrySource } from "./registry-source.ts";
import { planFor } from "./tools.ts";

// The texts live in instruction-text.ts, which the token budget counts; their users import them here.
export { catalogInstructions, INSTRUCTIONS_BUDGET, serverInstructions } from "./instruction-text.ts";

/**
 * A client whose tools depend on the skills (see `waitsForSkills`) learns what it is given from
 * the instructions, which go out with the answer to `initialize`; that answer waits this long at
 * most for the first load.
 */
export const FIRST_LOAD_WAIT_MS = 1500;

/**
 * Whether a client's `initialize` waits for the first load: one that takes tools but not prompts
 * (its instructions name skills), and one that caps its tools, whose plan depends on how many
 * tool skills there are (over its cap, they move behind the catalog tools, and its instructions
 * must say how to reach them). Every other client's plan is the same before and after the load
 * unless the configuration changes it, and it is answered at once.
 */
export function waitsForSkills(client: ClientProfile): boolean {
  return client.prompts === "not-shown" || client.capped;
}

/**
 * What `initialize` or `server/discover` says to this client: the catalog version when its plan
 * offers the catalog, else the usual one. A client that `waitsForSkills` waits (briefly) for
 * the first load; every other client is answered at once, with the catalog version only when
 * the skills are already loaded and its plan offers the catalog.
 */
export async function instructionsFor(
  source: RegistrySource,
  client: ClientProfile,
  options: { live: boolean },
): Promise<string> {
  let registry = source.loaded();
  if (registry === undefined && waitsForSkills(client)) {
    let timer: Timer | undefined;
    const waited = await Promise.race([
      source.current().catch(() => undefined),
      new Promise<undefined>((resolve) => (timer = setTimeout(resolve, FIRST_LOAD_WAIT_MS))),
    ]);
    clearTimeout(timer);
    registry = waited;
  }
  if (registry === undefined) return serverInstructions(options);
  const plan = planFor(registry, source.catalogSettings(), client);
  return plan.catalog ? catalogInstructions(registry, plan, client, options) : serverInstructions(options);
}
