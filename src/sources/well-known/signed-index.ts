/**
 * A url layer with `signers` (docs/provenance.md): `index.json.sig`, fetched from beside the
 * index, must be an SSHSIG signature of the index's exact bytes (namespace `agent-skills`) by a
 * key of the signers file. Checked as soon as the index arrives, before it is parsed or any
 * artifact fetched; the index carries every artifact's digest, so the one signature covers every
 * byte served. A missing, invalid or unknown-key signature refuses the layer.
 */

import { INDEX_SIGNATURE_FILE, readSignersFile, SignatureRefused, verifyIndex, type Signer } from "../signatures.ts";
import { redactUrl } from "../git-url.ts";
import { LayerRefused } from "./download.ts";
import { type BearerToken, FetchRefused, fetchBytes } from "./fetch.ts";

const SIGNATURE_MAX_BYTES = 64 * 1024;

export interface IndexVerifier {
  /** For `downloadLayer`'s `verifyIndex`: throws LayerRefused when the index is not signed as required. */
  verify: (index: Uint8Array, indexUrl: string) => Promise<void>;
  /** Who signed the index, once `verify` passed. */
  signer: () => Signer | undefined;
}

export function indexVerifier(signersFile: string, options: { auth?: BearerToken; timeoutMs: number }): IndexVerifier {
  let signer: Signer | undefined;
  return {
    signer: () => signer,
    async verify(index, indexUrl) {
      const shown = redactUrl(indexUrl);
      try {
        const signers = await readSignersFile(signersFile);
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
        signer = verifyIndex(shown, index, text, signers);
      } catch (error) {
        if (error instanceof SignatureRefused) throw new LayerRefused([error.message]);
        throw error;
      }
    },
  };
}
