/**
 * What `doctor` says about who published each remote layer (docs/provenance.md): where its copy
 * came from and who signed it, from the resolved layers (the lock and the cache; nothing is
 * fetched), and a note for each git or url layer without `signers`, whose host alone decides
 * what is served.
 */

import { declaringKey, isRemote, type RemoteSource } from "../config/layer-source.ts";
import type { LayerSpec } from "../config/resolve-config.ts";
import type { Diagnostic } from "../diagnostics.ts";
import { redactUrl } from "./git-url.ts";

/** The remote layers, each with its source (typed as remote). */
const remote = (layers: readonly LayerSpec[]) =>
  layers.flatMap((spec) => (isRemote(spec.source) ? [{ spec, source: spec.source }] : []));

/** Rows for a table: name, source (URL and commit, or index URL), signer; none without remote layers. */
export function provenanceRows(layers: readonly LayerSpec[]): string[][] {
  const rows = remote(layers).map(({ spec, source }) => {
    const origin = spec.provenance;
    const url = origin?.url ?? redactUrl(source.url);
    const shown = origin?.commit ? `${url} @ ${origin.commit.slice(0, 12)}` : url;
    const signer = origin?.signer
      ? `signed by ${origin.signer.principal} (${origin.signer.fingerprint})`
      : source.signers
        ? "not verified (run skill-central sync)"
        : "not checked (no signers)";
    return [spec.name, shown, signer];
  });
  return rows.length > 0 ? [["NAME", "SOURCE", "SIGNER"], ...rows] : [];
}

/** Who decides what an unsigned remote layer serves. */
function decider(source: RemoteSource): string {
  switch (source.kind) {
    case "git":
      return "whoever can change the repository";
    case "well-known":
      return "whoever can change the index's host";
  }
}

/** A note per remote layer without `signers`. */
export function provenanceProblems(layers: readonly LayerSpec[]): Diagnostic[] {
  return remote(layers)
    .filter(({ source }) => source.signers === undefined)
    .map(({ spec, source }) => ({
      severity: "note",
      code: "layer-unsigned",
      file: spec.origin,
      message: `${declaringKey(source)} layer "${spec.name}" has no signers: ${decider(source)} decides what is served`,
      hint: "list your publishers' SSH keys in an allowed-signers file and name it with `signers:` (docs/provenance.md)",
    }));
}
