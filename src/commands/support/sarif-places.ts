/**
 * `audit --format sarif`'s results for skills outside the project (the built-in layer, git and url
 * layers' verified copies) named as people read them. Their `uri` is relative to a `LAYER_<NAME>`
 * base, since the file is in no repository a code-scanning service can link to; this adds what
 * that base is (`originalUriBaseIds`: the layer at its commit, and with --verbose the cache folder
 * as a `file:` URI) and each result's file as every other command names it
 * (`artifactLocation.description`: `team@0f1e1a4:release-notes/SKILL.md`). Done on the log
 * src/audit/sarif.ts builds, so the audit's own output stays one shape.
 */
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { RecordAudit } from "../../load/audit-records.ts";
import type { LoadResult } from "../../load/load-skills.ts";

interface SarifArtifactLocation {
  uri: string;
  uriBaseId?: string;
  description?: { text: string };
}

interface SarifLog {
  runs: {
    results: { locations: { physicalLocation: { artifactLocation: SarifArtifactLocation } }[] }[];
    originalUriBaseIds?: Record<string, { uri?: string; description: { text: string } }>;
  }[];
}

/** The log with each layer base described and each result outside the project named; `audits` in the log's order. */
export function withLayerPlaces(
  log: object,
  audits: readonly RecordAudit[],
  loaded: Pick<LoadResult, "display" | "config">,
  verbose: boolean,
): object {
  const sarif = log as SarifLog;
  const run = sarif.runs[0];
  if (run === undefined) return log;
  const files = audits.flatMap((a) => a.findings.map((f) => join(a.base, f.file)));
  const bases: NonNullable<SarifLog["runs"][number]["originalUriBaseIds"]> = {};
  run.results.forEach((result, i) => {
    const location = result.locations[0]?.physicalLocation.artifactLocation;
    const file = files[i];
    if (location?.uriBaseId === undefined || !location.uriBaseId.startsWith("LAYER_") || file === undefined) return;
    location.description = { text: loaded.display(file) };
    const audit = audits.find((a) => file.startsWith(a.base));
    const spec = loaded.config.layers.find((l) => l.name === audit?.layer);
    if (spec === undefined || bases[location.uriBaseId] !== undefined) return;
    const at = loaded.display(spec.dir).replace(/:$/, "");
    const what = spec.provenance
      ? `layer "${spec.name}" (${at}), from ${spec.provenance.url}`
      : `layer "${spec.name}" (${at})`;
    bases[location.uriBaseId] = {
      ...(verbose && { uri: pathToFileURL(`${spec.dir}/`).href }),
      description: { text: what },
    };
  });
  if (Object.keys(bases).length > 0) run.originalUriBaseIds = { ...run.originalUriBaseIds, ...bases };
  return log;
}
