import type { ConfigOptions, ResolvedConfig } from "../config/resolve-config.ts";
import type { Diagnostic } from "../diagnostics.ts";
import { buildRegistry, type Candidate, type LayerRef, type Registry } from "../registry/registry.ts";
import type { ParseCache } from "./parse-cache.ts";
import { parseSkillFilesHere } from "./parse-file.ts";
import { displayPath } from "../storage/display-path.ts";
import { discoverSkillFiles } from "../storage/discover.ts";
import { layerDirState } from "../storage/fs-state.ts";
import { resolveLayers } from "../sources/resolve-layers.ts";

export interface LoadOptions extends ConfigOptions {
  /** Outcomes of unchanged files from an earlier load or process (see src/load/parse-cache.ts). */
  parseCache?: ParseCache;
  /**
   * For a reload: what each file yielded last time (`LoadResult.byFile`). A file that was good and
   * now fails (half-saved, bad YAML, invalid schema) keeps serving that version, with a warning.
   */
  previous?: ReadonlyMap<string, Candidate>;
}

export interface LoadResult {
  registry: Registry;
  config: ResolvedConfig;
  /** Everything worth telling a person, in the order found: broken files, conflicts, ties. */
  diagnostics: Diagnostic[];
  /** Milliseconds per phase, for `--debug-timing` and the benchmarks. */
  timing: Record<string, number>;
  /** The candidate each skill file yielded (absolute path), kept ones included: the next reload's `previous`. */
  byFile: Map<string, Candidate>;
}

/** A broken file's diagnostic, restated for the case where its last good version stays served. */
function keptLastGood(d: Diagnostic): Diagnostic {
  return { ...d, severity: "warning", message: `not reloaded, still serving its last good version: ${d.message.replace(/^skipped: /, "")}` };
}

/**
 * The one loading pipeline, shared by the server, the CLI and the public API:
 * config → layers → files (all read in parallel) → parsed skills → registry.
 */
export async function loadSkills(options: LoadOptions): Promise<LoadResult> {
  const diagnostics: Diagnostic[] = [];
  const report = (d: Diagnostic) => diagnostics.push(d.file ? { ...d, file: displayPath(d.file, options.cwd) } : d);
  const timing: Record<string, number> = {};
  let mark = performance.now();
  const phase = (name: string) => {
    const now = performance.now();
    timing[name] = now - mark;
    mark = now;
  };

  // The config's layers, git layers resolved to their verified copies (no git, no network).
  const config = await resolveLayers(options, report);
  phase("config");
  const layers: LayerRef[] = config.layers.map((spec, order) => ({ name: spec.name, priority: spec.priority, order}));

  const perLayer = await Promise.all(
    config.layers.map(async (spec) => {
      // Its reason was reported where it was decided.
      if (spec.unavailable !== undefined) return [];
      const state = await layerDirState(spec.dir);
      if (state !== "ok") {
        report({
          severity: "warning",
          code: "layer-missing",
          file: spec.dir,
          message: `layer "${spec.name}" (${spec.origin}): ${state === "missing" ? "folder does not exist" : "path is not a folder"}; it contributes no skills`,
        });
        return [];
      }
      return discoverSkillFiles(spec.dir);
    }),
  );
  phase("discover");
  const outcomes = await parseSkillFilesHere(perLayer.flat(), options.parseCache);
  phase("read+parse");

  const candidates: Candidate[] = [];
  const byFile = new Map<string, Candidate>();
  let next = 0;
  perLayer.forEach((files, layerIndex) => {
    const layer = layers[layerIndex]!;
    for (const outcome of outcomes.slice(next, next + files.length)) {
      const source = displayPath(outcome.file, options.cwd);
      const kept = outcome.ok ? undefined : options.previous?.get(outcome.file);
      outcome.diagnostics.map(kept ? keptLastGood : (d) => d).forEach(report);
      // A kept skill takes this load's layer: a config edit may have re-prioritised it.
      const candidate = outcome.ok ? { skill: outcome.skill, layer, source } : kept && { skill: kept.skill, layer, source };
      if (!candidate) continue;
      candidates.push(candidate);
      byFile.set(outcome.file, candidate);
    }
    next += files.length;
  });

  const built = buildRegistry(layers, candidates);
  built.diagnostics.forEach(report);
  phase("resolve");
  return { registry: built.registry, config, diagnostics, timing, byFile };
}
