/**
 * The files a skill folder serves, decided in one place: the folder's listing (discover.ts's
 * `listSkillFolder`: hidden names and links left out) without its examples file, which is for
 * `skill-central test` only, and without its `evals/` folder, the author's test data for
 * `skill-central eval` (a model shown the expected answers would be graded on nothing). The loader publishes exactly these (load/folder-files.ts), and the
 * audit gate judges exactly these (audit/gate.ts), so no file is served that was not looked at.
 */
import { type FolderListing, listSkillFolder } from "./discover.ts";
import { isEvalDataPath } from "./eval-files.ts";

/** Where inline examples of a skill folder live: beside SKILL.md, so other tools never see them in its frontmatter. */
const EXAMPLES_FILES = ["examples.yaml", "examples.yml"];

/** The examples file names among a folder's top-level file names, the one read first: a second is served as a file. */
export function examplesFilesIn(names: readonly string[]): string[] {
  return EXAMPLES_FILES.filter((name) => names.includes(name));
}

export interface ServedFolder {
  listing: FolderListing;
  /** The served files' paths relative to the folder, `/`-separated: the `SKILL.md` first, then sorted. */
  names: string[];
}

/** The walk of a skill folder and the names it serves (see the header). */
export function servedFolderFiles(dir: string, skillFile: string): ServedFolder {
  const listing = listSkillFolder(dir, skillFile);
  const [examples] = examplesFilesIn(listing.files.map((f) => f.rel));
  return { listing, names: listing.files.flatMap((f) => (f.rel === examples || isEvalDataPath(f.rel) ? [] : [f.rel])) };
}
