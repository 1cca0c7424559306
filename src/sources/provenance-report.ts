/**
 * What `doctor` says about who published each remote layer (docs/provenance.md): where its copy
 * came from and who signed it, from the resolved layers (the lock and the cache; nothing is
 * fetched), and a note for each git or url layer without `signers`, whose host alone decides
 * what is served.
 */

import type { LayerSpec } from "../config/resolve-config.ts";
import type { Diagnostic } from "../diagnostics.ts";
import { redactUrl } from "./git-url.ts";

const remote = (layers: readonly LayerSpec[]) => layers.filter((l) => l.git || l.wellKnown);

/** Rows for a table: name, source (URL and commit, or index URL), signer; none without remote layers. */
export function provenanceRows(layers: readonly LayerSpec[]): string[][] {
  const rows = remote(layers).map((l) => {
    const origin = l.provenance;
    const url = origin?.url ?? redactUrl((l.git ?? l.wellKnown)!.url);
    const source = origin?.commit ? `${url} @ ${origin.commit.slice(0, 12)}` : url;
    const signer = origin?.signer
      ? `signed by ${origin.signer.principal} (${origin.signer.fingerprint})`
      : (l.git ?? l.wellKnown)!.signers
        ? "not verified (run skill-central sync)"
        : "not checked (no signers)";
    return [l.name, source, signer];
  });
  return rows.length > 0 ? [["NAME", "SOURCE", "SIGNER"], ...rows] : [];
}

/** A note per remote layer without `signers`. */
export function provenanceProblems(layers: readonly LayerSpec[]): Diagnostic[] {
  return remote(layers)
    .filter((l) => (l.git ?? l.wellKnown)!.signers === undefined)
    .map((l) => ({
      severity: "note",
      code: "layer-unsigned",
      file: l.origin,
      message: `${l.git ? "git" : "url"} layer "${l.name}" has no signers: whoever can change ${l.git ? "the repository" : "the index's host"} decides what is served`,
      hint: "list your publishers' SSH keys in an allowed-signers file and name it with `signers:` (docs/provenance.md)",
    }));
}
