/**
 * A url layer with `signers` (docs/provenance.md): `index.json.sig`, fetched from beside the
 * index, must be an SSHSIG signature of the index's exact bytes (namespace `agent-skills`) by a
 * key of the signers file, and by no key of the layer's `revoked` file. Checked as soon as the
 * index arrives, before it is parsed or any artifact fetched; the index carries every artifact's
 * digest, so the one signature covers every byte served. A missing, invalid or unknown-key
 * signature refuses the layer.
 *
 * Rollback: an index `publish --sign` writes carries the time it was published (format.ts
 * `PUBLISHED_KEY`), inside the signed bytes. An index published before the one served is refused
 * unless a downgrade is allowed, and so is one without the time when the served one had it; an
 * index without it is taken (unordered) only when the served one lacked it too.
 */

import { allowDowngradeCommand } from "../downgrade.ts";
import {
  INDEX_SIGNATURE_FILE,
  readRevokedFile,
  readSignersFile,
  SignatureRefused,
  verifyIndex,
  type Signer,
  type TrustFiles,
} from "../signatures.ts";
import { redactUrl } from "../git-url.ts";
import { LayerRefused } from "./download.ts";
import { type BearerToken, FetchRefused, fetchBytes } from "./fetch.ts";
import { indexPublished } from "./format.ts";
import { fingerprint } from "../../storage/sshsig.ts";

const SIGNATURE_MAX_BYTES = 64 * 1024;

export interface IndexVerifier {
  /** For `downloadLayer`'s `verifyIndex`: throws LayerRefused when the index is not signed as required. */
  verify: (index: Uint8Array, indexUrl: string) => Promise<void>;
  /** Who signed the index, once `verify` passed. */
  signer: () => Signer | undefined;
  /** When the verified index says it was published (ISO 8601), if it says. */
  published: () => string | undefined;
}

/** What the layer serves now, for the rollback check: absent on a first sync. */
export interface ServedIndex {
  layer: string;
  /** The served index's publication time; undefined when it carried none. */
  published: string | undefined;
  locked: boolean;
}

/** Why `published` (of the index fetched) would move the layer back from `served`, or undefined. */
function downgrade(published: string | undefined, served: ServedIndex, shown: string): string | undefined {
  if (served.published === undefined) return undefined;
  const what = served.locked ? "the locked index" : "the index served";
  if (published === undefined)
    return `the index ${shown} carries no publication time, while ${what} was published ${served.published}: an older index is refused; ${allowDowngradeCommand(served.layer)} takes it if that is meant`;
  if (Date.parse(published) >= Date.parse(served.published)) return undefined;
  return `the index ${shown} was published ${published}, before ${what} (published ${served.published}): an older signed index is refused (a host serving an old copy?); ${allowDowngradeCommand(served.layer)} takes it if that is meant`;
}

/**
 * Why the served index's signer may sign no more (its key is in the layer's `revoked` file, or
 * that file cannot be used), or undefined: a lock signed before the key was revoked is refused on
 * the next `sync`, as a git layer's locked commit is.
 */
export async function servedSignerRevoked(trust: TrustFiles, signer: Signer): Promise<string | undefined> {
  if (trust.revoked === undefined) return undefined;
  try {
    const revoked = await readRevokedFile(trust.revoked);
    const line = revoked.keys.find((k) => fingerprint(k.blob) === signer.fingerprint)?.line;
    return line === undefined
      ? undefined
      : `the locked index is signed by ${signer.fingerprint}, a key revoked in ${revoked.shown} (line ${line}); this layer refuses its signatures`;
  } catch (error) {
    if (error instanceof SignatureRefused) return error.message;
    throw error;
  }
}

export function indexVerifier(
  trust: TrustFiles & { signers: string },
  options: { auth?: BearerToken; timeoutMs: number },
  served?: ServedIndex,
): IndexVerifier {
  let signer: Signer | undefined;
  let published: string | undefined;
  return {
    signer: () => signer,
    published: () => published,
    async verify(index, indexUrl) {
      const shown = redactUrl(indexUrl);
      try {
        const signers = await readSignersFile(trust.signers);
        const revoked = trust.revoked === undefined ? undefined : await readRevokedFile(trust.revoked);
        const sigUrl = new URL(INDEX_SIGNATURE_FILE, indexUrl).href;
        let text: string;
        try {
          text = new TextDecoder().decode(
            (await fetchBytes(sigUrl, { ...options, maxBytes: SIGNATURE_MAX_BYTES })).bytes,
          );
        } catch (error) {
          if (!(error instanceof FetchRefused)) throw error;
          throw new SignatureRefused(
            `the index ${shown} has no signature this layer can read (${error.message}); its signers require ${INDEX_SIGNATURE_FILE}`,
          );
        }
        const verified = verifyIndex(shown, index, text, signers, revoked);
        const stamp = indexPublished(index);
        const older = served && downgrade(stamp, served, shown);
        if (older !== undefined) throw new SignatureRefused(older);
        [signer, published] = [verified, stamp];
      } catch (error) {
        if (error instanceof SignatureRefused) throw new LayerRefused([error.message]);
        throw error;
      }
    },
  };
}
