import { relative } from "node:path";
import { resolveConfig, type ConfigOptions, type ResolvedConfig } from "./config/resolve-config.ts";
import type { Diagnostic } from "./diagnostics.ts";
import { buildRegistry, type Candidate, type LayerRef, type Registry } from "./registry/registry.ts";
import { parseSkill } from "./skill/parse-skill.ts";
import { discoverSkillFiles, layerDirState } from "./storage/discover.ts";
import { parseSkillDocument } from "./storage/parse-document.ts";
import { readSkillFiles } from "./storage/read.ts";

export type LoadOptions = ConfigOptions;

export interface LoadResult {
  registry: Registry;
  config: ResolvedConfig;
  /** Everything worth telling a person, in the order found: broken files, conflicts, ties. */
  diagnostics: Diagnostic[];
  /** Milliseconds per phase, for `--debug-timing` and the benchmarks. */
  timing: Record<string, number>;
}

/** Paths in messages are relative to the project when they are inside it: shorter, clickable. */
function displayPath(file: string, cwd: string): string {
  const rel = relative(cwd, file);
  return rel.startsWith("..") || rel === "" ? file : rel;
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

  const config = await resolveConfig(options, report);
  phase("config");
  const layers: LayerRef[] = config.layers.map((spec, order) => ({ name: spec.name, priority: spec.priority, order, location: spec.dir }));

  const perLayer = await Promise.all(
    config.layers.map(async (spec) => {
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
  const reads = await Promise.all(perLayer.map(readSkillFiles));
  phase("read");

  const candidates: Candidate[] = [];
  reads.forEach((results, layerIndex) => {
    const layer = layers[layerIndex]!;
    for (const result of results) {
      if (!result.ok) {
        report(result.diagnostic);
        continue;
      }
      const file = result.source.file;
      const parsed = parseSkillDocument(result.source);
      if (!parsed.ok) {
        report(parsed.diagnostic);
        continue;
      }
      const skill = parseSkill(parsed.doc.data, parsed.doc.locate);
      if (!skill.ok) {
        // One warning per file: the first problem, with the rest appended so nothing is hidden.
        const [first, ...rest] = skill.errors;
        const extra = rest.map((e) => e.message.replace(/^skipped: /, "")).join("; ");
        report({ ...first!, file, message: rest.length > 0 ? `${first!.message}; also: ${extra}` : first!.message });
        continue;
      }
      for (const warning of skill.warnings) report({ ...warning, file });
      candidates.push({ skill: skill.skill, layer, source: displayPath(file, options.cwd) });
    }
  });
  phase("parse");

  const built = buildRegistry(layers, candidates);
  built.diagnostics.forEach(report);
  phase("resolve");
  return { registry: built.registry, config, diagnostics, timing };
}
