/**
 * The revoked-keys file a layer names beside its `signers` (`revoked:`, docs/provenance.md): the
 * role git's `gpg.ssh.revocationFile` plays for `ssh-keygen -Y verify -r`. Read as ssh-keygen
 * reads a plain revocation list (`sshkey_in_file` in OpenSSH's authfile.c): blank lines and `#`
 * comments skipped, every other line a public key `type base64 [comment]` (a `.pub` file's line).
 * A line that is not a key makes ssh-keygen fail every verification, so here it refuses the file
 * (and so the layer) rather than revoking less than was meant. OpenSSH's binary key revocation
 * lists (KRLs) are not read: one is refused, saying so, never taken as revoking nothing.
 */

import { readKey } from "./allowed-signers.ts";
import { SshSigError } from "./sshsig.ts";

/** The first bytes of an OpenSSH KRL (krl.h `KRL_MAGIC`). */
const KRL_MAGIC = "SSHKRL\n\0";

export interface RevokedKeys {
  keys: { blob: Uint8Array; line: number }[];
}

/** The file's keys; throws SshSigError (fit to print) for a KRL or a line that is not a key. */
export function parseRevokedKeys(bytes: Uint8Array): RevokedKeys {
  if (Buffer.from(bytes.subarray(0, KRL_MAGIC.length)).toString("latin1") === KRL_MAGIC)
    throw new SshSigError(
      "it is an OpenSSH KRL (binary key revocation list), which skill-central does not read: list the revoked public keys instead, one per line (each key's .pub line)",
    );
  const keys: RevokedKeys["keys"] = [];
  new TextDecoder()
    .decode(bytes)
    .split("\n")
    .forEach((raw, index) => {
      const line = raw.replace(/^[ \t]+/, "").replace(/\r$/, "");
      if (line === "" || line.startsWith("#")) return;
      const key = readKey(line);
      if (!key)
        throw new SshSigError(
          `line ${index + 1} is not a public key (a key type and its base64, as in a .pub file); ssh-keygen would refuse every signature`,
        );
      keys.push({ blob: key.blob, line: index + 1 });
    });
  return { keys };
}

/** The line that revokes `blob`, if any. */
export function revokedAt(revoked: RevokedKeys, blob: Uint8Array): number | undefined {
  return revoked.keys.find((k) => Buffer.compare(k.blob, blob) === 0)?.line;
}
