/** `validate <paths…>`: files named on a command line, each judged through the loader's own per-file steps. */
import { isAbsolute, join } from "node:path";
import type { Diagnostic } from "../diagnostics.ts";
import type { Candidate, LayerRef } from "../registry/registry.ts";
import { discoverSkillFiles, type FoundFolder } from "../storage/discover.ts";
import { displayPath } from "../storage/display-path.ts";
import { layerDirState } from "../storage/fs-state.ts";
import { ContentStore } from "./content-store.ts";
import { DigestBook } from "./digest-book.ts";
import { FolderFacts } from "./folder-files.ts";
import { parseSkillFolder, parseSkillPath } from "./parse-folder.ts";
import type { FileParse } from "./parse-file.ts";
import type { SkillRecord } from "./record.ts";

export interface FilesResult {
  records: SkillRecord[];
  /** Each file's skill on its own: two named files sharing an id are not a conflict here. */
  candidates: Candidate[];
  diagnostics: Diagnostic[];
  display: (path: string) => string;
}

/**
 * Skill files named on a command line (folders are searched like a layer; a SKILL.md stands for
 * its folder), each judged on its own through the loader's per-file steps, for `validate <paths…>`.
 */
export function loadFiles(paths: readonly string[], cwd: string): FilesResult {
  const display = (path: string) => displayPath(path, { cwd });
  const diagnostics: Diagnostic[] = [];
  // A skill file's path, or a skill folder's SKILL.md with the folder as discovered.
  const units = new Map<string, FoundFolder | undefined>();
  for (const path of paths) {
    const full = isAbsolute(path) ? path : join(cwd, path);
    const state = layerDirState(full);
    if (state === "ok") {
      const found = discoverSkillFiles(full);
      for (const file of found.files) units.set(file, undefined);
      for (const folder of found.folders) units.set(folder.skillFile, folder);
      for (const d of found.diagnostics) diagnostics.push(d);
    } else if (state === "not-a-directory") {
      if (!units.has(full)) units.set(full, undefined);
    } else
      diagnostics.push({
        severity: "error",
        code: "no-such-file",
        file: full,
        message: "no such file or folder",
        hint: "check the path: a relative one is read from the project folder (--cwd)",
      });
  }
  const layer: LayerRef = { name: "paths", priority: 0, order: 0 };
  const store = new ContentStore(undefined, (path) => parseSkillPath(path));
  const digests = new DigestBook(undefined);
  const records: SkillRecord[] = [];
  const candidates: Candidate[] = [];
  for (const [path, folder] of units) {
    const parsed: FileParse = folder
      ? parseSkillFolder(folder, { keepLocator: true })
      : parseSkillPath(path, { keepLocator: true });
    const base = {
      path,
      layer,
      ...(parsed.stamp && { stamp: parsed.stamp }),
      diagnostics: parsed.diagnostics,
      ...(parsed.locate && { locate: parsed.locate }),
      ...(parsed.locateKey && { locateKey: parsed.locateKey }),
    };
    if (parsed.skill && parsed.content) {
      const content = store.hold(path, parsed.stamp, parsed.content);
      const files = parsed.skill.format === "skill-md" ? new FolderFacts(digests, path) : undefined;
      records.push({ ...base, outcome: "served", skill: parsed.skill, content, ...(files && { files }) });
      candidates.push({ skill: parsed.skill, layer, path, source: display(path), content, ...(files && { files }) });
    } else records.push({ ...base, outcome: "skipped" });
  }
  return { records, candidates, diagnostics, display };
}
