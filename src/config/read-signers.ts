/**
 * A git or url layer's `signers` key: the OpenSSH allowed-signers file whose keys must have signed
 * what the layer serves (docs/provenance.md). The path is relative to the config file naming it.
 * Only the key is read here; the file itself is read by `sync` (src/sources/signatures.ts), never
 * on the path to the first answer. A bad value ignores the layer: serving it unverified would be
 * the opposite of what was asked.
 */
import type { ReportProblem } from "./config-problem.ts";

export const SIGNERS_KEY = "signers";

/** `{ signers }` (absolute), `{}` without the key, or undefined after a problem reported (layer ignored); paths relative to the layer. */
export function readSigners(
  layer: Record<string, unknown>,
  name: string,
  expand: (path: string) => string,
  report: ReportProblem,
): { signers?: string } | undefined {
  if (!(SIGNERS_KEY in layer)) return {};
  const value = layer[SIGNERS_KEY];
  if (typeof value !== "string" || value.trim() === "")
    return void report({
      message: `layer "${name}": "signers" must be the path of an OpenSSH allowed-signers file; layer ignored (it is not served unverified)`,
      path: [SIGNERS_KEY],
    });
  return { signers: expand(value.trim()) };
}
