/** Who is asking, as the registry cares (it decides which layers they see): the caller, its name, and whether `visibleTo` lets it see a layer. */
import type { VisibleTo } from "../config/visible-to.ts";

/**
 * Who is asking, as far as the registry cares: what decides which layers they see. One tagged
 * union for every transport, so "nobody" and "everybody" are never told apart by `undefined`
 * against `{}`: stdio and the board serve the `local` user, who sees every layer; an HTTP request
 * is authenticated into one of the others (no authentication configured: `anonymous`, who sees
 * no layer that declares `visibleTo`).
 */
export type Caller =
  | { readonly kind: "local" }
  | { readonly kind: "anonymous" }
  /** A static bearer token, by its label (`--token-file`, `SKILL_CENTRAL_TOKEN`). */
  | { readonly kind: "token"; readonly label: string }
  /**
   * A validated OAuth access token: its issuer and subject (who it is, across tokens), the name
   * the access log shows (the `callerClaim`, `sub` by default) and its claims (what `visibleTo`
   * matches), never the token itself.
   */
  | {
      readonly kind: "oauth";
      readonly issuer: string;
      readonly subject: string;
      readonly name: string;
      readonly claims: Readonly<Record<string, unknown>>;
    };

/** The person at this machine (stdio, the board): sees every layer. */
export const LOCAL_USER: Caller = { kind: "local" };
/** An HTTP request to a server with no authentication: sees no layer that declares `visibleTo`. */
export const ANONYMOUS: Caller = { kind: "anonymous" };

/**
 * The name a record of the caller's doings shows (the usage history, the access log): a static
 * token's label, an OAuth caller's name (its `callerClaim`, `sub` by default); none for the local
 * user or anonymous. A name is for people to read: two issuers may hand out the same one.
 */
export function callerName(caller: Caller): string | undefined {
  switch (caller.kind) {
    case "token":
      return caller.label;
    case "oauth":
      return caller.name;
    case "local":
    case "anonymous":
      return undefined;
  }
}

/**
 * Who the caller is, where a name would not do (a 2025-11-25 session is only good for the
 * principal that opened it): `token:<label>`, `oauth:<iss> <sub>` (unique, unlike the name), or
 * undefined for anonymous and local callers.
 */
export function principalOf(caller: Caller): string | undefined {
  switch (caller.kind) {
    case "token":
      return `token:${caller.label}`;
    case "oauth":
      return `oauth:${caller.issuer} ${caller.subject}`;
    case "local":
    case "anonymous":
      return undefined;
  }
}

/** Whether `caller` may see a layer that declares `visibleTo` (undefined: everyone may). */
export function canSee(visibleTo: VisibleTo | undefined, caller: Caller): boolean {
  if (visibleTo === undefined) return true;
  switch (caller.kind) {
    case "local":
      return true;
    case "anonymous":
      return false;
    case "token":
      return visibleTo.labels.includes(caller.label);
    case "oauth":
      return Object.entries(visibleTo.claims).some(([name, accepted]) => {
        const held = caller.claims[name];
        if (typeof held === "string") return accepted.includes(held);
        return Array.isArray(held) && held.some((value) => typeof value === "string" && accepted.includes(value));
      });
  }
}
