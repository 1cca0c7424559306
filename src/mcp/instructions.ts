import type { ClientProfile } from "./client-profiles.ts";
import { catalogInstructions, serverInstructions } from "./instruction-text.ts";
import type { RegistrySource } from "./registry-source.ts";
import { planFor } from "./tools.ts";

// The texts live in instruction-text.ts, which the token budget counts; their users import them here.
export { catalogInstructions, INSTRUCTIONS_BUDGET, serverInstructions } from "./instruction-text.ts";

/**
 * A tool-only client learns what skills exist from the instructions, which go out with the
 * answer to `initialize`; that answer waits this long at most for the first load.
 */
export const FIRST_LOAD_WAIT_MS = 1500;

/**
 * What `initialize` or `server/discover` says to this client. A client that takes tools but not
 * prompts waits (briefly) for the first load, so its instructions can name skills; every other
 * client is answered at once, with the catalog version only when the skills are already loaded
 * and its plan offers the catalog.
 */
export async function instructionsFor(
  source: RegistrySource,
  client: ClientProfile,
  options: { live: boolean },
): Promise<string> {
  let registry = source.loaded();
  if (registry === undefined && client.prompts === "not-shown") {
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
