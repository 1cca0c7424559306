/**
 * The scopes a token grants: RFC 9068's `scope` (space-separated), or `scp` as Entra ID (a
 * space-separated string) and Okta (an array) send it.
 */
export function grantedScopes(claims: Readonly<Record<string, unknown>>): Set<string> {
  const granted = new Set<string>();
  for (const value of [claims.scope, claims.scp]) {
    if (typeof value === "string") for (const s of value.split(" ")) if (s !== "") granted.add(s);
    if (Array.isArray(value)) for (const s of value) if (typeof s === "string") granted.add(s);
  }
  return granted;
}

/** Whether every required scope is granted (none required: always). */
export function hasScopes(claims: Readonly<Record<string, unknown>>, required: readonly string[]): boolean {
  if (required.length === 0) return true;
  const granted = grantedScopes(claims);
  return required.every((scope) => granted.has(scope));
}
