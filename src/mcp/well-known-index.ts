import { perSnapshot } from "../registry/per-snapshot.ts";
import { publishedCatalog, type PublishedSkill } from "../registry/published-skills.ts";
import type { Registry } from "../registry/registry.ts";
import {
  CONTENT_TYPES,
  type IndexEntry,
  SEMVER_PATTERN,
  serialiseIndex,
  sha256Digest,
} from "../sources/well-known/format.ts";
import { writeTarGz } from "../storage/tar-gz.ts";
import { AUDIT_META_KEY, auditAttestation } from "./audit-meta.ts";
import { bytesOf } from "./skill-files.ts";

/**
 * The Agent Skills well-known index of a registry snapshot (docs/well-known.md): one entry per
 * published skill (the skills extension's, registry/published-skills.ts), and the artifact each
 * entry names, with the very bytes its digest is of.
 *
 * A skill that is a lone `SKILL.md` (a YAML prompt skill's synthesised one included: the same
 * bytes `resources/read` serves) is `skill-md` at `<name>/SKILL.md`; a folder with other files is
 * an `archive` at `<name>.tar.gz` with the folder's files at its root (tar-gz.ts: deterministic).
 * URLs are relative to the index, so the same tree serves from any host and prefix, and a
 * versioned snapshot (`v1.2.0/index.json`) resolves to its own copies.
 *
 * Served live by `mcp --http` (http/well-known.ts) and written by `skill-central publish`.
 */

export interface Artifact {
  /** Relative to the index's folder, `/`-separated. */
  path: string;
  bytes: Uint8Array;
  contentType: string;
  digest: string;
}

export interface WellKnownTree {
  /** `index.json`'s bytes. */
  index: Uint8Array;
  indexDigest: string;
  entries: readonly IndexEntry[];
  /** By path relative to the index's folder. */
  artifacts: ReadonlyMap<string, Artifact>;
}

const encoder = new TextEncoder();

function artifactOf(skill: PublishedSkill): { entry: IndexEntry; artifact: Artifact } {
  const name = skill.candidate.skill.id;
  const files = skill.files.map((file) => ({ path: file.path, bytes: bytesOf(skill, file) }));
  const single = files.length === 1 && files[0]!.path === "SKILL.md";
  const bytes = single ? files[0]!.bytes : writeTarGz(files);
  const type = single ? "skill-md" : "archive";
  const path = single ? `${name}/SKILL.md` : `${name}.tar.gz`;
  const digest = sha256Digest(bytes);
  const { version } = skill.candidate.skill;
  const audit = auditAttestation(skill, digest);
  return {
    entry: {
      name,
      description: skill.frontmatter.description,
      type,
      url: path,
      digest,
      ...(version !== undefined && SEMVER_PATTERN.test(version) && { version }),
      ...(audit && { _meta: { [AUDIT_META_KEY]: audit } }),
    },
    artifact: { path, bytes, contentType: CONTENT_TYPES[type], digest },
  };
}

/** Builds the tree of a snapshot (every artifact is made here, once). */
export function buildWellKnownTree(registry: Registry): WellKnownTree {
  const entries: IndexEntry[] = [];
  const artifacts = new Map<string, Artifact>();
  for (const skill of publishedCatalog(registry).skills) {
    const { entry, artifact } = artifactOf(skill);
    entries.push(entry);
    artifacts.set(artifact.path, artifact);
  }
  const index = encoder.encode(serialiseIndex(entries));
  return { index, indexDigest: sha256Digest(index), entries, artifacts };
}

/** The tree of a snapshot (or of a caller's view of it), made on first use and shared. */
export const wellKnownTree = perSnapshot(buildWellKnownTree);
