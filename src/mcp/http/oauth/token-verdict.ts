/**
 * What checking an access token found. `reason` is for the client and the log: it names what was
 * wrong (the audience, the signature), never the token or its content.
 */
export type TokenVerdict =
  | { kind: "valid"; claims: Readonly<Record<string, unknown>> }
  | { kind: "invalid"; reason: string }
  /** The authorization server (its metadata, keys or introspection) could not be reached: not the token's fault. */
  | { kind: "unavailable"; reason: string };
