/**
 * A skill's digest as the audit reports it and `audit.allow` pins it: for an Agent Skills folder
 * (or a lone `SKILL.md`), exactly the digest of its artifact in the well-known index
 * (src/registry/well-known-index.ts): the `SKILL.md`'s own bytes when it is the only file, else the
 * deterministic `.tar.gz` of its files (storage/tar-gz.ts). A YAML skill file has no artifact of
 * its own (a tool is not in the index; a prompt is published as a `SKILL.md` made from it), so
 * its digest is that of the file, which is what the audit read.
 *
 * `contentKey` names the same content more cheaply, from each file's own SHA-256 (which the load
 * already knows): the cache of results (cache.ts) is keyed by it, so a warm run reads no file.
 */
import { type Digest, digestOf, sha256Hex } from "../storage/digest.ts";
import { writeTarGz } from "../storage/tar-gz.ts";
import { RULES_VERSION } from "./rules.ts";
import type { SkillFileBytes } from "./verdict.ts";

/** A folder skill's digest: its files with `SKILL.md` at the root, as the index publishes them. */
export function folderDigest(files: readonly SkillFileBytes[]): Digest {
  if (files.length === 1 && files[0]!.path === "SKILL.md") return digestOf(files[0]!.bytes);
  return digestOf(writeTarGz(files));
}

/** The cache key of a skill's content: its kind, each file's path and SHA-256, and the rules' version. */
export function contentKey(kind: "folder" | "file", files: readonly { path: string; sha256: string }[]): string {
  const sorted = [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return sha256Hex([`${RULES_VERSION}\0${kind}\0`, ...sorted.map((f) => `${f.path}\0${f.sha256}\n`)]);
}
