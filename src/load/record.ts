/** What became of each skill file in a load, recorded once and read by everything after it. */
import type { Diagnostic } from "../diagnostics.ts";
import type { LayerRef } from "../registry/registry.ts";
import type { ContentSource, Skill } from "../skill/skill.ts";
import type { KeyLocator, Locator } from "../storage/parse-document.ts";
import type { FileStamp } from "../storage/stamp.ts";
import type { FolderFacts } from "./folder-files.ts";

/**
 * What became of a skill file in a load:
 * - `served`: it yields a skill (which resolution may still shadow);
 * - `skipped`: it yields nothing (its diagnostics say why);
 * - `kept`: it is broken now, and the version that was good in the previous load keeps serving.
 */
export type Outcome = "served" | "skipped" | "kept";

/**
 * One record per skill file, made once by the load and read by everything after it: the server
 * (what to log, what to serve), `validate`, `test`, `doctor` and the API. Nothing re-reads or
 * re-parses a file to learn more about it.
 */
export interface SkillRecord {
  /** Absolute path; shown to people through `LoadResult.display`. */
  path: string;
  layer: LayerRef;
  /** The version read now; absent when the file could not even be opened. */
  stamp?: FileStamp;
  /** The version whose skill is served: `stamp` for `served`, the last good one for `kept`. */
  servedStamp?: FileStamp;
  outcome: Outcome;
  /** For `served` and `kept`. */
  skill?: Skill;
  content?: ContentSource;
  /** An Agent Skills folder's published files, their sizes and digests worked out on first use. */
  files?: FolderFacts;
  /** Every finding for this file, each with its own position (`file` is `path`). */
  diagnostics: readonly Diagnostic[];
  /** Where fields are written: present when the load kept sources (the CLI asks for that). */
  locate?: Locator;
  /** Where fields' keys are written, where the parser knows (Agent Skills folders). */
  locateKey?: KeyLocator;
}
