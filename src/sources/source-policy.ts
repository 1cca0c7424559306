/**
 * `policy.sources` carried out (docs/governance.md): a git or url layer whose URL matches no
 * pattern of a list in effect is refused before anything of it is read: not its lock entry, not
 * its cached copy, not the network. Both ways in, the loader (resolve-layers.ts) and `sync`, come
 * through here, so a refused layer is never served, fetched or refreshed. One diagnostic per
 * refused layer names it, its URL with credentials redacted, and the list it is outside.
 */
import type { SourceList } from "../config/policy-settings.ts";
import { declaringKey, type LayerSource } from "../config/layer-source.ts";
import type { LayerSpec, ResolvedConfig } from "../config/resolve-config.ts";
import { sourceMatches } from "../config/source-patterns.ts";
import type { Diagnostic } from "../diagnostics.ts";
import { redactUrl } from "./git-url.ts";

/** The first list (user's first) that `source` matches no pattern of; undefined when every list allows it. */
function outside(source: LayerSource, lists: readonly SourceList[]): SourceList | undefined {
  if (source.kind === "path") return undefined;
  return lists.find((list) => !list.patterns.some((p) => sourceMatches(p, source.url, source.kind)));
}

/** Why a layer outside `list` is refused: the list, and the file that set it. */
function reasonOf(list: SourceList): string {
  const patterns = list.patterns.length === 0 ? "no pattern" : list.patterns.map((p) => p.text).join(", ");
  return `it is outside policy.sources (${patterns}; set in ${list.file})`;
}

/**
 * The config's layers with each one outside a list marked `outsidePolicy` and `unavailable`
 * (its `dir` emptied, so nothing reads it), each reported once as an error (`doctor` and
 * `validate` fail on it; a server says it once on stderr and serves the rest).
 */
export function applySourcePolicy(config: ResolvedConfig, report: (d: Diagnostic) => void): ResolvedConfig {
  const lists = config.sourceLists;
  if (lists === undefined || lists.length === 0) return config;
  let refused = false;
  const layers = config.layers.map((spec): LayerSpec => {
    const list = outside(spec.source, lists);
    if (list === undefined) return spec;
    refused = true;
    const reason = reasonOf(list);
    const { source } = spec;
    const url = source.kind === "path" ? source.path : redactUrl(source.url);
    report({
      severity: "error",
      code: "source-refused",
      file: spec.origin,
      message: `${declaringKey(source)} layer "${spec.name}" (${url}): ${reason}, so nothing of it is fetched or served`,
      hint: "add a pattern that matches it to policy.sources in every config that sets one, or remove the layer",
    });
    return { ...spec, dir: "", unavailable: reason, outsidePolicy: true };
  });
  return refused ? { ...config, layers } : config;
}
