/**
 * One entry of the admin log (docs/governance.md) as bytes: the canonical record an admin's SSH
 * key signs (SSHSIG, namespace ADMIN_NAMESPACE, so a signature made for git or an index can never
 * pass for an admin action), the hash that chains each entry to the one before it, and the check
 * of an entry read back against an allowed-signers file. Owned here, apart from the store's SQL,
 * so the SQLite and PostgreSQL backends sign and verify the very same bytes.
 *
 * The chain: an entry's `prev` is the hash of the entry before it (its record and its signature),
 * and `prev` is inside what is signed. Editing a row breaks its signature; deleting a row from the
 * middle breaks the next row's `prev`. Deleting the newest rows leaves a shorter, valid chain: the
 * triggers of the schema refuse a DELETE, and `log` prints the newest sequence number so a copy
 * kept elsewhere can tell.
 */
import { createHash } from "node:crypto";
import { allowedSigner, type AllowedSigners } from "./allowed-signers.ts";
import {
  fingerprint,
  parseSignature,
  signMessage,
  SshSigError,
  type SshPrivateKey,
  verifySignature,
} from "./sshsig.ts";

/** The SSHSIG namespace of admin actions: an allowed_signers line may restrict a key to it. */
export const ADMIN_NAMESPACE = "skill-central-admin@skill-central.dev";
/** The `prev` of the first entry. */
export const CHAIN_START = "sha256:0";

export type AdminAction = "approve" | "block" | "unblock";

/** An entry as the store holds it. */
export interface AdminEntry {
  seq: number;
  /** Milliseconds since the epoch, the signer's clock. */
  at: number;
  principal: string;
  fingerprint: string;
  action: AdminAction;
  skill: string;
  /** The content digest it is about (`sha256:…`); none: every version of the skill (a block). */
  digest?: string;
  reason: string;
  /** An approval's files (path, SHA-256), sorted: what was approved, to say what changed since. */
  files?: readonly (readonly [string, string])[];
  prev: string;
  /** The armoured SSHSIG signature of `canonicalRecord(this)`. */
  signature: string;
}

/** What an admin asks to record; the store adds `seq` and `prev`. */
export type AdminDraft = Pick<AdminEntry, "at" | "principal" | "action" | "skill" | "digest" | "reason" | "files">;

/** The bytes signed: every field but the signature, in a fixed order, as one JSON array. */
export function canonicalRecord(entry: Omit<AdminEntry, "signature">): Uint8Array {
  const fields = [
    "skill-central-admin/1",
    entry.seq,
    entry.at,
    entry.principal,
    entry.fingerprint,
    entry.action,
    entry.skill,
    entry.digest ?? null,
    entry.reason,
    entry.prev,
    entry.files ?? null,
  ];
  return new TextEncoder().encode(JSON.stringify(fields));
}

/** The hash the next entry's `prev` holds. */
export function chainHash(entry: AdminEntry): string {
  return `sha256:${createHash("sha256").update(canonicalRecord(entry)).update(entry.signature).digest("hex")}`;
}

/** The entry `draft` becomes at `seq` after `prev`, signed with `key`. */
export function signEntry(draft: AdminDraft, seq: number, prev: string, key: SshPrivateKey): AdminEntry {
  const unsigned = { ...draft, seq, prev, fingerprint: fingerprint(key.publicKey.blob) };
  return { ...unsigned, signature: signMessage(key, canonicalRecord(unsigned), ADMIN_NAMESPACE) };
}

/** An entry read back: whether it verifies, and why not. */
export interface CheckedEntry extends AdminEntry {
  /** Its signature verifies, by a listed key, and the chain holds up to it. */
  verified: boolean;
  /**
   * Its own signature verifies by a listed key, whatever the chain: what a server obeys, so that
   * deleting one row cannot switch off every block recorded after it.
   */
  signed: boolean;
  /** Why it does not verify (fit to print); absent when it does. */
  problem?: string;
}

/** Why `entry`'s own signature does not verify against `signers`, or undefined. */
function signatureProblem(entry: AdminEntry, signers: AllowedSigners): string | undefined {
  let sig: ReturnType<typeof parseSignature>;
  try {
    sig = parseSignature(entry.signature);
  } catch (error) {
    if (error instanceof SshSigError) return `its signature cannot be read: ${error.message}`;
    throw error;
  }
  const key = fingerprint(sig.publicKey.blob);
  if (key !== entry.fingerprint) return `signed by ${key}, not the key it names (${entry.fingerprint})`;
  let good: boolean;
  try {
    good = verifySignature(sig, canonicalRecord(entry), ADMIN_NAMESPACE);
  } catch (error) {
    if (error instanceof SshSigError) return `its signature is invalid: ${error.message}`;
    throw error;
  }
  if (!good) return "its signature does not match the entry (changed after signing)";
  const allowed = allowedSigner(signers, sig.publicKey.blob, ADMIN_NAMESPACE, entry.at);
  if ("refused" in allowed) return allowed.refused;
  if (allowed.principal !== entry.principal)
    return `the key is listed for ${allowed.principal}, not for ${entry.principal}`;
  return undefined;
}

/** Every entry (in `seq` order, the whole log) checked against `signers` and the chain. */
export function checkLog(entries: readonly AdminEntry[], signers: AllowedSigners): CheckedEntry[] {
  let prev = CHAIN_START;
  return entries.map((entry) => {
    const unsigned = signatureProblem(entry, signers);
    const problem =
      unsigned ??
      (entry.prev !== prev ? "the entry before it was changed or deleted (the hash chain breaks here)" : undefined);
    prev = chainHash(entry);
    return problem === undefined
      ? { ...entry, verified: true, signed: true }
      : { ...entry, verified: false, signed: unsigned === undefined, problem };
  });
}
