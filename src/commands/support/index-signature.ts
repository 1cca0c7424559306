/**
 * `publish --sign KEYFILE` (docs/provenance.md): `index.json.sig` beside every `index.json`
 * written, an SSHSIG signature in namespace `agent-skills` that `ssh-keygen -Y verify` and a url
 * layer's `signers` accept. Signed in process (no OpenSSH needed); a passphrase-protected key is
 * refused with the ssh-keygen command that signs with it instead. An existing signature that
 * still verifies for the same index and key is kept, so a re-publish touches nothing even with a
 * key (ECDSA) whose signatures differ each time.
 */

import { readFileSync } from "node:fs";
import { INDEX_NAMESPACE } from "../../sources/signatures.ts";
import {
  parsePrivateKey,
  parseSignature,
  signMessage,
  SshSigError,
  verifySignature,
  type SshPrivateKey,
} from "../../storage/sshsig.ts";

/** The signing key, or a message fit to print about why it cannot be used. */
export function loadSigningKey(file: string): SshPrivateKey | { problem: string } {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as { code?: string }).code;
    return { problem: `cannot read the key ${file}: ${code === "ENOENT" ? "no such file" : (code ?? String(error))}` };
  }
  try {
    return parsePrivateKey(text);
  } catch (error) {
    if (error instanceof SshSigError) return { problem: `cannot sign with ${file}: ${error.message}` };
    throw error;
  }
}

/** The signature file's bytes for `index`: `existing` when it already signs these bytes with this key. */
export function indexSignature(key: SshPrivateKey, index: Uint8Array, existing: Uint8Array | undefined): Uint8Array {
  if (existing !== undefined) {
    try {
      const signature = parseSignature(new TextDecoder().decode(existing));
      if (
        Buffer.compare(signature.publicKey.blob, key.publicKey.blob) === 0 &&
        verifySignature(signature, index, INDEX_NAMESPACE)
      )
        return existing;
    } catch {
      // Not a signature we can keep: written anew.
    }
  }
  return new TextEncoder().encode(signMessage(key, index, INDEX_NAMESPACE));
}
