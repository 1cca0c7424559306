/**
 * A git or url layer's `signers` key: the OpenSSH allowed-signers file whose keys must have signed
 * what the layer serves (docs/provenance.md). The path is relative to the config file naming it.
 * Only the key is read here; the file itself is read by `sync` (src/sources/signatures.ts), never
 * on the path to the first answer. A bad value ignores the layer: serving it unverified would be
 * the opposite of what was asked.
 */

export const SIGNERS_KEY = "signers";

/** `{ signers }` (absolute), `{}` without the key, or undefined after a warning (layer ignored). */
export function readSigners(
  layer: Record<string, unknown>,
  name: string,
  expand: (path: string) => string,
  warn: (message: string, field: string) => void,
): { signers?: string } | undefined {
  if (!(SIGNERS_KEY in layer)) return {};
  const value = layer[SIGNERS_KEY];
  if (typeof value !== "string" || value.trim() === "")
    return void warn(
      `layer "${name}": "signers" must be the path of an OpenSSH allowed-signers file; layer ignored (it is not served unverified)`,
      SIGNERS_KEY,
    );
  return { signers: expand(value.trim()) };
}
