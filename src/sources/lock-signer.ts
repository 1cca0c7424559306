/**
 * The `signer` a lock entry (and a cache's current copy) records for a layer with `signers`:
 * who signed what it serves, shown by `show`, `doctor`, the board and `skills/list`. Read
 * leniently (a malformed one is dropped: it is a record, not a trust decision; `sync` verifies),
 * written with its fields in a fixed order.
 */

import type { Signer } from "../storage/allowed-signers.ts";

export type { Signer } from "../storage/allowed-signers.ts";

const FINGERPRINT = /^SHA256:[A-Za-z0-9+/]{43}$/;

export function readSigner(value: unknown): Signer | undefined {
  const v = value as { principal?: unknown; fingerprint?: unknown } | null | undefined;
  return v && typeof v.principal === "string" && typeof v.fingerprint === "string" && FINGERPRINT.test(v.fingerprint)
    ? { principal: v.principal, fingerprint: v.fingerprint }
    : undefined;
}

export function writeSigner(signer: Signer): Signer {
  return { principal: signer.principal, fingerprint: signer.fingerprint };
}
