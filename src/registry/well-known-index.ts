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
 * What is served but not published is named with its reason (`leftOut`): a tool skill (the
 * format has no tools), a skill with a file name a client would refuse to unpack (the rule
 * `sync` applies: storage/archive-entries.ts `pathProblem`), one whose files cannot be read.
 * A YAML prompt published as `SKILL.md` keeps its text but not its arguments, and its Handlebars
 * is plain text to an Agent Skills client: those with arguments are named (`promptsAsText`).
 *
 * Served live by `mcp --http` (mcp/http/well-known.ts) and written by `skill-central publish`;
 * each passes its reader of a published file's bytes (published-bytes.ts `publishedBytes`, which
 * MCP wraps to answer with a protocol error), and what an entry attests in `_meta` (the audit's
 * verdict: audit-attestation.ts `auditEntryMeta`).
 */

import { type Digest, digestOf } from "../storage/digest.ts";
import { pathProblem } from "../storage/archive-entries.ts";
import { CONTENT_TYPES, type IndexEntry, SEMVER_PATTERN, serialiseIndex } from "../sources/well-known/format.ts";
import { writeTarGz } from "../storage/tar-gz.ts";
import { perSnapshot } from "./per-snapshot.ts";
import { publishedCatalog, type PublishedFile, type PublishedSkill } from "./published-skills.ts";
import type { Registry } from "./registry.ts";

export interface Artifact {
  /** Relative to the index's folder, `/`-separated. */
  path: string;
  bytes: Uint8Array;
  contentType: string;
  digest: Digest;
}

/** A served skill the index leaves out, and why. */
export interface LeftOut {
  name: string;
  reason: string;
}

/** A published file's bytes, exactly those its digest promises; throws when they cannot be had. */
export type ReadPublishedFile = (skill: PublishedSkill, file: PublishedFile) => Uint8Array;

/** An entry's `_meta` for a published skill whose artifact has `digest`, or undefined for none. */
export type EntryMetaOf = (skill: PublishedSkill, digest: Digest) => Record<string, unknown> | undefined;

export interface WellKnownTree {
  /** `index.json`'s bytes. */
  index: Uint8Array;
  indexDigest: Digest;
  entries: readonly IndexEntry[];
  /** By path relative to the index's folder. */
  artifacts: ReadonlyMap<string, Artifact>;
  /** Sorted by name. */
  leftOut: readonly LeftOut[];
  /** YAML prompt skills with arguments, published as their template's text. */
  promptsAsText: readonly string[];
}

const encoder = new TextEncoder();

function artifactOf(
  skill: PublishedSkill,
  read: ReadPublishedFile,
  metaOf: EntryMetaOf | undefined,
): { entry: IndexEntry; artifact: Artifact } {
  const name = skill.candidate.skill.id;
  const files = skill.files.map((file) => ({ path: file.path, bytes: read(skill, file) }));
  const single = files.length === 1 && files[0]!.path === "SKILL.md";
  const bytes = single ? files[0]!.bytes : writeTarGz(files);
  const type = single ? "skill-md" : "archive";
  const path = single ? `${name}/SKILL.md` : `${name}.tar.gz`;
  const digest = digestOf(bytes);
  const { version } = skill.candidate.skill;
  const meta = metaOf?.(skill, digest);
  return {
    entry: {
      name,
      description: skill.frontmatter.description,
      type,
      url: path,
      digest,
      ...(version !== undefined && SEMVER_PATTERN.test(version) && { version }),
      ...(meta !== undefined && { _meta: meta }),
    },
    artifact: { path, bytes, contentType: CONTENT_TYPES[type], digest },
  };
}

/** Why a published skill cannot be in the index, or undefined. */
function unpublishable(skill: PublishedSkill): string | undefined {
  for (const file of skill.files) {
    const problem = pathProblem(file.path);
    if (problem !== undefined)
      return `its file ${JSON.stringify(file.path)} ${problem}: no client would unpack it (rename the file)`;
  }
  return undefined;
}

const byName = (a: LeftOut, b: LeftOut) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** Builds the tree of a snapshot (every artifact is made here, once). */
export function buildWellKnownTree(registry: Registry, read: ReadPublishedFile, metaOf?: EntryMetaOf): WellKnownTree {
  const entries: IndexEntry[] = [];
  const artifacts = new Map<string, Artifact>();
  const leftOut: LeftOut[] = registry.ofType("tool").map((c) => ({
    name: c.skill.id,
    reason: "a tool skill: the Agent Skills format has no tools (MCP clients still get it as a tool)",
  }));
  const promptsAsText: string[] = [];
  const published = publishedCatalog(registry).skills;
  const ids = new Set(published.map((s) => s.candidate.skill.id));
  for (const c of registry.ofType("prompt"))
    if (!ids.has(c.skill.id))
      leftOut.push({ name: c.skill.id, reason: "its files cannot be published (`skill-central validate` says why)" });
  for (const skill of published) {
    const problem = unpublishable(skill);
    if (problem !== undefined) {
      leftOut.push({ name: skill.candidate.skill.id, reason: problem });
      continue;
    }
    const { entry, artifact } = artifactOf(skill, read, metaOf);
    entries.push(entry);
    artifacts.set(artifact.path, artifact);
    if (skill.synthesised && skill.candidate.skill.arguments.length > 0) promptsAsText.push(entry.name);
  }
  const index = encoder.encode(serialiseIndex(entries));
  return {
    index,
    indexDigest: digestOf(index),
    entries,
    artifacts,
    leftOut: leftOut.sort(byName),
    promptsAsText: promptsAsText.sort(),
  };
}

/** The trees of snapshots (or of callers' views of them), each made on first use and shared. */
export function wellKnownTrees(read: ReadPublishedFile, metaOf?: EntryMetaOf): (registry: Registry) => WellKnownTree {
  return perSnapshot((registry) => buildWellKnownTree(registry, read, metaOf));
}
