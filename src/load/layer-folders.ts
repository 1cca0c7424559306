/**
 * A file belongs to exactly one layer. A layer declared inside another layer's folder (`team:
 * skills`, `security: skills/security` with `visibleTo`) would otherwise be walked twice, and its
 * skills served a second time as the outer layer's, to callers its `visibleTo` leaves out. So
 * each file goes to the innermost layer whose folder holds it: the outer layer's walk leaves the
 * inner folder alone (src/storage/discover.ts), and a note says so. Two layers on the same folder
 * have no innermost one: both are refused, with an error naming both (never served to more
 * callers than either allows). Real paths are compared, so a link or `..` does not hide a nesting.
 * Verified copies of remote layers (git, url) are the exception: their folders are named by their
 * content, so two layers pinned to the same commit share one, and each serves it as declared.
 */
import { isAbsolute, relative, sep } from "node:path";
import { layerPlace } from "../config/layer-position.ts";
import { isRemote } from "../config/layer-source.ts";
import type { LayerSpec } from "../config/resolve-config.ts";
import type { Diagnostic } from "../diagnostics.ts";
import { realpathOrSelf, type InnerLayers } from "../storage/discover.ts";
import { isDirectory } from "../storage/fs-state.ts";

export interface LayerFolders {
  /** The layers, those sharing a folder marked unavailable. */
  layers: LayerSpec[];
  /** Per layer (same order): the other layers' folders inside its own, left to them. */
  inner: InnerLayers[];
  diagnostics: Diagnostic[];
}

const NONE: InnerLayers = new Map();

function strictlyInside(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel !== "" && rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}

const restriction = (spec: LayerSpec) => (spec.visibleTo ? " (restricted by visibleTo)" : "");

/** Which layer each folder's files belong to; see the module header. */
export function assignLayerFolders(specs: readonly LayerSpec[], display: (path: string) => string): LayerFolders {
  const real = specs.map((spec) => {
    if (spec.unavailable !== undefined || spec.dir === "" || !isDirectory(spec.dir)) return undefined;
    try {
      return realpathOrSelf(spec.dir);
    } catch {
      return undefined;
    }
  });
  const diagnostics: Diagnostic[] = [];
  const layers = [...specs];
  const inner: Map<string, string>[] = specs.map(() => new Map());
  // First the folders two layers share: both refused.
  const shared = new Set<number>();
  for (let i = 0; i < specs.length; i++) {
    for (let j = i + 1; j < specs.length; j++) {
      if (real[i] === undefined || real[i] !== real[j]) continue;
      const a = specs[i]!;
      const b = specs[j]!;
      if (isRemote(a.source) && isRemote(b.source)) continue;
      const message = `layers "${a.name}" and "${b.name}" have the same folder (${display(a.dir)}): a file belongs to exactly one layer, so neither is loaded`;
      diagnostics.push({
        severity: "error",
        code: "layer-folder-shared",
        ...layerPlace(b),
        message,
        hint: "give each layer a folder of its own",
      });
      layers[i] = { ...layers[i]!, unavailable: message };
      layers[j] = { ...layers[j]!, unavailable: message };
      shared.add(i).add(j);
    }
  }
  // Then nesting: the outer layer leaves the inner folder alone, even a refused one's (never fail open).
  for (let i = 0; i < specs.length; i++) {
    const outer = real[i];
    if (outer === undefined || shared.has(i)) continue;
    for (let j = 0; j < specs.length; j++) {
      const dir = real[j];
      if (i === j || dir === undefined || !strictlyInside(dir, outer)) continue;
      const a = specs[i]!;
      const b = specs[j]!;
      inner[i]!.set(dir, b.name);
      if (shared.has(j)) continue;
      diagnostics.push({
        severity: "note",
        code: "layer-inside-layer",
        ...layerPlace(b),
        message: `layer "${b.name}"${restriction(b)} is inside layer "${a.name}"'s folder: its files (${display(b.dir)}) belong to "${b.name}" alone, not to "${a.name}"`,
      });
    }
  }
  return { layers, inner: inner.map((m) => (m.size === 0 ? NONE : m)), diagnostics };
}
