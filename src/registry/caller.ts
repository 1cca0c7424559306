import type { VisibleTo } from "../config/visible-to.ts";

/**
 * Who is asking, as far as the registry cares: what decides which layers they see. An HTTP
 * request is authenticated into one (static token: its label; OAuth: the token's claims);
 * stdio has none, which means the local user, who sees every layer.
 */
export interface Caller {
  /** The label of the static bearer token presented, if one was. */
  readonly label?: string;
  /** The claims of a validated OAuth access token (or of its introspection answer), if one was presented. */
  readonly claims?: Readonly<Record<string, unknown>>;
}

/** Whether `caller` may see a layer that declares `visibleTo` (undefined: everyone may). */
export function canSee(visibleTo: VisibleTo | undefined, caller: Caller | undefined): boolean {
  if (visibleTo === undefined || caller === undefined) return true;
  if (caller.label !== undefined && visibleTo.labels.includes(caller.label)) return true;
  const claims = caller.claims;
  if (claims === undefined) return false;
  for (const [name, accepted] of Object.entries(visibleTo.claims)) {
    const held = claims[name];
    if (typeof held === "string" && accepted.includes(held)) return true;
    if (Array.isArray(held) && held.some((value) => typeof value === "string" && accepted.includes(value))) return true;
  }
  return false;
}
