/**
 * Whether a snapshot serves any deprecated skill: worked out once per snapshot, so a call to a
 * catalog without one never looks for a notice to add.
 */
import { perSnapshot } from "./per-snapshot.ts";
import type { Registry } from "./registry.ts";

export const hasDeprecated = perSnapshot((registry: Registry): boolean =>
  registry.served().some((c) => c.skill.deprecated !== undefined),
);
